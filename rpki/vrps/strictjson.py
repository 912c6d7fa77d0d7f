"""JSON (RFC 8259) read strictly, with the position of every fault.

json.loads is given hooks so that a key twice in one object is noted (RFC 8259 section 4 wants
names unique; json keeps the last silently) and NaN or Infinity, which are no JSON, are refused.
`check_object`, `check_list` and `each` then check a document's shape and name the JSON path of a
fault ("roas[3].maxLength"). Used by the JSON readers here and by rpki.slurm.
"""

from __future__ import annotations

import json
import re

from bgpsim.base.errors import InputError

JSON_START_RE = re.compile(r"[ \t\r\n]*[{\[]")  # a text that is JSON, if anything, starts so


class JSONObject(dict):
    """A JSON object that remembers the first key it saw twice (json keeps the last silently)."""

    __slots__ = ("duplicate",)


def _pairs(items):
    obj = JSONObject(items)
    obj.duplicate = None
    if len(obj) != len(items):
        seen = set()
        obj.duplicate = next(k for k, _ in items if k in seen or seen.add(k))
    return obj


def reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def load_json(text: str, source) -> object:
    """Parse JSON strictly: no NaN or Infinity, duplicate keys noted (see `check_object`)."""
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_constant=reject_constant)
    except json.JSONDecodeError as e:
        raise InputError(f"bad JSON: {e.msg}", source, f"{e.lineno}:{e.colno}") from None
    except ValueError as e:
        raise InputError(f"bad JSON: {e}", source) from None
    except RecursionError:
        raise InputError("bad JSON: nested too deeply", source) from None


def join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    if not path:
        return key
    return f"{path}{key}" if key.startswith("[") else f"{path}.{key}"


_KEYSETS: dict = {}


def check_object(value: object, path: str, source, required=(), optional=(), what="an object") -> JSONObject:
    """`value` must be a JSON object with every key of `required`, and no key outside
    `required` and `optional`; each fault names its JSON path."""
    sets = _KEYSETS.get((required, optional))
    if sets is None:
        sets = _KEYSETS[(required, optional)] = (frozenset(required), frozenset(required) | frozenset(optional))
    if type(value) is JSONObject and value.duplicate is None and sets[0] <= value.keys() <= sets[1]:
        return value
    where = path or None
    if not isinstance(value, JSONObject):
        raise InputError(f"want {what}, got {kind_of(value)}", source, where)
    if value.duplicate is not None:
        raise InputError(f"key {value.duplicate!r} appears twice", source, join(path, value.duplicate))
    for k in required:
        if k not in value:
            raise InputError(f"missing key {k!r}", source, join(path, k))
    for k in value:
        if k not in sets[1]:
            raise InputError(f"unknown key {k!r}; want {', '.join(sorted(sets[1]))}", source, join(path, k))
    return value


def each(items: object, path: str, source, parse) -> list:
    """parse(element) for each element of the JSON list `items`; parse raises InputError with
    `where` relative to the element (None, 'prefix', 'providers[1]'), to which the element's own
    path is put in front here. (Paths are made only for faults, so a good entry costs none.)"""
    out = []
    for i, e in enumerate(check_list(items, path, source)):
        try:
            out.append(parse(e))
        except InputError as err:
            err.where = f"{path}[{i}]" if err.where is None else join(f"{path}[{i}]", err.where)
            raise
    return out


def check_list(value: object, path: str, source) -> list:
    if not isinstance(value, list):
        raise InputError(f"want a list, got {kind_of(value)}", source, path)
    return value


def kind_of(value: object) -> str:
    """A JSON value as a fault's message names what it got instead."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the string {value[:60]!r}"
    if value is None:
        return "null"
    return f"{json.dumps(value)}"
