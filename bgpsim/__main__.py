from bgpsim.cli import run

run()  # as the `bgpsim` command (a closed pipe, `dump` and `validate` end the same way)
