"""The base layer: errors, output files and directories, TOML reading, the console, prefixes.
It imports nothing else of bgpsim; everything else may import it."""
