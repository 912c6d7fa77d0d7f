"""The monitor's output directory: checked before the broker is dialled, touched only once connected,
resumed by a later monitor, grown by whole records.

routes.csv, alerts.jsonl (and with --by-group alerts/GROUP.jsonl, each listed in the output's marker
before it is first written) are opened for appending, unbuffered: each write is whole lines (a batch
of checked routes, one alert), so a monitor killed at any moment leaves whole records; a later one
cuts a torn last line (a write the kernel did not finish) before it appends. summary.json holds the
counts of every run so far: a resumed monitor adds its own to those it finds.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from bgpsim.base import outdir
from bgpsim.base.errors import InputError
from bgpsim.validate.output import summary_json

FILES = ("routes.csv", "alerts.jsonl", "summary.json")


class MonitorOutput:
    def __init__(self, out: str | os.PathLike, header: str, warn, by_group: bool = False):
        """Checks `out` for `bgpsim monitor` (nothing is written yet); `header`: routes.csv's first line;
        `by_group`: each alert also in alerts/GROUP.jsonl."""
        self.out = Path(out)
        self.header = header.encode()
        self.warn = warn
        self.by_group = by_group
        self._groups: dict = {}  # group -> its file, open for appending
        self.previous: dict | None = None  # the summary of the runs before this one
        self._routes = self._alerts = self._bmp = None
        if outdir.check(self.out, "monitor") != "ours":
            return
        routes = self.out / "routes.csv"
        if routes.exists():
            with open(routes, "rb") as f:
                first = f.readline()
            if first and first != self.header:
                raise InputError(f"--out {self.out}: its routes.csv has the columns {first.decode(errors='replace').strip()}, "
                                 f"not {header.strip()} (--router-keys adds the bgpsec ones): resume with the same "
                                 "options or name another directory")
        try:
            self.previous = json.loads((self.out / "summary.json").read_text(encoding="utf-8"))
        except FileNotFoundError:
            pass  # stopped by SIGKILL: its routes are in routes.csv, its counts are lost
        except (OSError, ValueError) as e:
            raise InputError(f"--out {self.out}: its summary.json cannot be read ({e}); name another directory") from None

    def open(self) -> None:
        """Once the broker is there: the directory made or resumed, and the files opened for appending."""
        outdir.resumable(self.out, "monitor", FILES)
        try:
            self._routes = self._open("routes.csv", self.header)
            self._alerts = self._open("alerts.jsonl", b"")
        except OSError as e:
            raise InputError(f"--out {self.out}: cannot write: {e.strerror or e}") from None

    def _open(self, name: str, header: bytes):
        f, cut = outdir.open_append(self.out / name, header)
        if cut:
            self.warn(f"{self.out / name}: its last line was cut short by an earlier stop; {cut} bytes of it removed")
        return f

    def routes(self, lines: bytes) -> None:
        self._routes.write(lines)

    def alert(self, alert: dict) -> None:
        line = (json.dumps(alert) + "\n").encode()
        self._alerts.write(line)
        if self.by_group:
            f = self._groups.get(alert["group"])
            if f is None:
                f = self._groups[alert["group"]] = self._group_file(alert["group"])
            f.write(line)

    def record(self, mrt: bytes) -> None:
        """One whole MRT record of what a BMP feed brought, appended to bmp.mrt (listed in the marker
        before it is first written; a resumed monitor appends)."""
        if self._bmp is None:
            try:
                if not (self.out / "bmp.mrt").exists():
                    outdir.add_files(self.out, "monitor", ["bmp.mrt"])
                self._bmp = open(self.out / "bmp.mrt", "ab", buffering=0)
            except OSError as e:
                raise InputError(f"--out {self.out}: cannot write bmp.mrt: {e.strerror or e}") from None
        self._bmp.write(mrt)  # one write a record: a stop leaves whole ones

    def _group_file(self, group: str):
        """alerts/GROUP.jsonl, listed in the marker before it is first written (a resumed monitor
        appends to it)."""
        name = f"alerts/{group}.jsonl"
        try:
            (self.out / "alerts").mkdir(exist_ok=True)
            if not (self.out / name).exists():
                outdir.add_files(self.out, "monitor", [name])
            return self._open(name, b"")
        except OSError as e:
            raise InputError(f"--out {self.out}: cannot write {name}: {e.strerror or e}") from None

    def close(self, doc: dict | None) -> None:
        """Closes the files and writes summary.json: `doc`, this run's counts, added to the earlier runs'."""
        for f in (self._routes, self._alerts, self._bmp, *self._groups.values()):
            if f is not None:
                f.close()
        if doc is not None:
            if self.previous is not None:
                doc = merged(self.previous, doc)
            outdir.write_atomic(self.out / "summary.json", summary_json(doc))


# How summary.json's fields add up over runs: a count adds; these keep the later value, or the largest;
# lists of rows are joined by their key fields and sorted as validate.output sorts them.
_LATEST = {"vrps", "aspas", "files", "router_keys", "target_as", "watched"}
_LARGEST = {"most_waiting"}
_ROWS = {"by_peer": (("peer_ip", "peer_as"), "routes"), "top_invalid_origins": (("origin_as",), "invalid")}


def merged(before: dict, now: dict) -> dict:
    """The summary of a monitor's runs on one output: `before` (one run or more) and `now`."""
    out = _add(before, now, ())
    feed = out.get("feed")
    if isinstance(feed, dict) and feed.get("seconds"):
        feed["updates_per_second"] = round(feed["updates"] / feed["seconds"])
    out["runs"] = before.get("runs", 1) + 1
    return out


def _add(before: dict, now: dict, keys: tuple[str, ...]) -> dict:
    out = {}
    for k, v in now.items():
        b = before.get(k)
        if k in _LATEST or k in keys or b is None:
            out[k] = v
        elif k in _LARGEST:
            out[k] = max(b, v)
        elif isinstance(v, dict) and isinstance(b, dict):
            out[k] = _add(b, v, ())
        elif k in _ROWS and isinstance(v, list) and isinstance(b, list):
            out[k] = _rows(b, v, *_ROWS[k], limit=max(len(b), len(v)))
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and isinstance(b, (int, float)):
            out[k] = round(b + v, 3) if isinstance(v, float) or isinstance(b, float) else b + v
        else:
            out[k] = v
    return out


def _rows(before: list[dict], now: list[dict], key: tuple[str, ...], count: str, limit: int) -> list[dict]:
    rows: dict[tuple, dict] = {}
    for r in before + now:
        k = tuple(r.get(f) for f in key)
        rows[k] = _add(rows[k], r, key) if k in rows else dict(r)
    order = sorted(rows.items(), key=lambda kv: (-kv[1].get(count, 0), tuple(str(x) for x in kv[0])))
    return [r for _, r in order][:limit]
