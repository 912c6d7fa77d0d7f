"""The console: progress bars on standard error (a terminal only), standard output that a closed
pipe does not break, and the quick end of a process whose output is written."""

from __future__ import annotations

import os
import sys
import time
from typing import NoReturn


class Bar:
    """A progress bar on stderr (a terminal only), shown once the work has lasted `delay` seconds."""

    def __init__(self, enabled: bool, unit: str, delay: float = 0.0):
        self.enabled, self.unit, self.delay = enabled, unit, delay
        self.started = time.perf_counter()
        self.bar = None

    def _due(self) -> bool:
        return self.enabled and (self.bar is not None or time.perf_counter() - self.started >= self.delay)

    def __call__(self, done: int, total: int) -> None:
        if not self._due():
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=done, unit=self.unit, file=sys.stderr, leave=False, smoothing=0.05)
        self.bar.n = done
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class Progress(Bar):
    """The timed engine's progress line: events handled and simulated time (no total is known),
    for runs that last more than two seconds."""

    def __init__(self, enabled: bool):
        super().__init__(enabled, "event", delay=2.0)

    def __call__(self, events: int, now: float) -> None:
        if not self._due():
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(file=sys.stderr, leave=False, initial=events, desc=f"t = {now:.1f} s simulated",
                            bar_format="simulating: {n:,} events, {desc} [{elapsed}]")
        self.bar.n = events
        self.bar.set_description_str(f"t = {now:.1f} s simulated", refresh=False)
        self.bar.refresh()


class Status(Bar):
    """A live status line for work with no known end (a feed): a count, its rate, and a text; `write`
    puts a line above it (warnings, alerts) without breaking it. Stderr on a terminal only."""

    def __call__(self, n: int, text: str) -> None:
        if not self._due():
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(file=sys.stderr, leave=False, unit=self.unit, smoothing=0.1,
                            bar_format="{n:,} {unit}s [{elapsed}, {rate_fmt}{postfix}]")
        self.bar.set_postfix_str(text, refresh=False)
        self.bar.update(n - self.bar.n)  # through update(): the rate shown is a moving average

    def write(self, line: str) -> None:
        if self.bar is not None:
            self.bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:  # the last count, which update() may have left undrawn (it redraws
            self.bar.refresh()  # ten times a second at most), then the line goes
        super().close()


def write_stdout(text: str) -> None:
    """`text` on standard output; a reader that stopped early (`| head`) is no error."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        reader_gone()


def reader_gone() -> None:
    """After a BrokenPipeError on standard output (`| head`: the reader has all it wants): the
    rest goes to /dev/null, so that the interpreter's last flush does not fail too."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def end_now(status: int) -> NoReturn:
    """Ends the process at once (os._exit), its output flushed. The interpreter's own ending frees
    every object one by one and collects garbage a last time: after `bgpsim validate` on a full
    table, a tenth of a second spent on memory the kernel takes back anyway. Only for commands
    that leave nothing running (`dump`, `validate`) and only as the `bgpsim` command (bgpsim.cli.run)."""
    try:
        sys.stdout.flush()
    finally:
        sys.stderr.flush()
        os._exit(status)
