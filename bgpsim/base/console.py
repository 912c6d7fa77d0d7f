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


PIPE_CLOSED = 141  # the exit status of a command whose reader went away: 128 + SIGPIPE, as other Unix tools end


def write_stdout(text: str) -> None:
    """`text` on standard output, flushed. A reader that stopped early (`| head`) ends the command
    quietly with status PIPE_CLOSED: bgpsim.cli sees to it, for every command."""
    sys.stdout.write(text)
    sys.stdout.flush()


def stdout_gone() -> bool:
    """Whether standard output is a pipe whose reader has gone (`| head` has what it wants): polled,
    so that a BrokenPipeError of another pipe or socket is not taken for it."""
    import select

    try:
        poll = select.poll()
        poll.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poll.poll(0))
    except (AttributeError, OSError, ValueError):  # no file descriptor (a test's capture), or none open
        return False


def reader_gone() -> None:
    """Standard output to /dev/null, once its reader has gone: what is still buffered, and the
    interpreter's last flush, go nowhere instead of failing."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def end_now(status: int) -> NoReturn:
    """Ends the process at once (os._exit), its output flushed. The interpreter's own ending frees
    every object one by one and collects garbage a last time: after `bgpsim validate` on a full
    table, a tenth of a second spent on memory the kernel takes back anyway, and as much after the
    class demo's `bgpsim run` (matplotlib's objects). Only for commands that leave nothing running
    (`dump`, `validate`, `run`) and only as the `bgpsim` command (bgpsim.cli.run)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader has gone: the status says so, as bgpsim.cli.main's does
        status = PIPE_CLOSED
    finally:
        sys.stderr.flush()
        os._exit(status)
