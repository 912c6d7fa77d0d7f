"""TOML files with line numbers for keys.

`tomllib` parses but forgets where a key stood. Errors about a bad key or value must name its line, so
`TomlFile` keeps the source text and maps each key path — ("attack", "kind"), ("as", 3, "providers") —
to the line it was written on.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from .errors import InputError

_ARRAY_TABLE = re.compile(r"^\s*\[\[\s*([^\[\]]+?)\s*\]\]\s*(#.*)?$")
_TABLE = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-\.\"' ]+?)\s*=")


def _split_dotted(name: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in name.split("."))


class TomlFile:
    """A parsed TOML document that can say on which line a key path was written."""

    def __init__(self, path: str | Path, text: str | None = None):
        self.path = str(path)
        if text is None:
            try:
                text = Path(path).read_text(encoding="utf-8")
            except FileNotFoundError:
                raise InputError("no such file", self.path) from None
            except OSError as e:
                raise InputError(f"cannot read: {e.strerror or e}", self.path) from None
            except UnicodeDecodeError as e:
                raise InputError(f"cannot read: not UTF-8 (byte {e.start})", self.path) from None
        try:
            self.data: dict[str, Any] = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            line = getattr(e, "lineno", None)  # Python 3.14+; before, only in the message
            found = re.search(r"\(at line (\d+), column \d+\)", str(e))
            if line is None and found:
                line = int(found.group(1))
            msg = str(e).split(" (at line")[0]
            raise InputError(f"not valid TOML: {msg}", self.path, line) from None
        self._lines = self._index(text)

    @staticmethod
    def _index(text: str) -> dict[tuple, int]:
        lines: dict[tuple, int] = {}
        counts: dict[tuple, int] = {}
        table: tuple = ()
        for number, line in enumerate(text.splitlines(), 1):
            if m := _ARRAY_TABLE.match(line):
                name = _split_dotted(m.group(1))
                i = counts.get(name, 0)
                counts[name] = i + 1
                table = name + (i,)
                lines.setdefault(name, number)
                lines[table] = number
            elif m := _TABLE.match(line):
                table = _split_dotted(m.group(1))
                lines.setdefault(table, number)
            elif m := _KEY.match(line):
                lines.setdefault(table + _split_dotted(m.group(1)), number)
        return lines

    def line(self, *key: str | int) -> int | None:
        """The line of the longest prefix of `key` that was written in the file."""
        for end in range(len(key), 0, -1):
            if (n := self._lines.get(tuple(key[:end]))) is not None:
                return n
        return None

    def error(self, message: str, *key: str | int) -> InputError:
        """An InputError naming the key (dotted) and its line."""
        name = ".".join(str(k) if isinstance(k, str) else f"[{k}]" for k in key).replace(".[", "[")
        return InputError(f"{name}: {message}" if name else message, self.path, self.line(*key))

    def check_keys(self, table: dict, allowed: set[str], *where: str | int) -> None:
        """Reject any key of `table` not in `allowed`, naming the valid ones."""
        for k in table:
            if k not in allowed:
                raise self.error(f"unknown key (valid: {', '.join(sorted(allowed))})", *where, k)
