"""The strict DER gate (X.690 section 10, demanded by RFC 6487 section 4 and RFC 6488 section 3).

asn1crypto decodes leniently: it accepts BER (indefinite and non-minimal lengths, non-minimal INTEGERs,
BOOLEAN TRUE as 0x01, encoded DEFAULT values, unsorted SET OF) and even an extra undeclared SEQUENCE
element. So every object is decoded completely, re-encoded with `dump(force=True)`, and must come out
byte for byte identical. The same gate runs on each inner blob (eContent, RFC 3779 extension values).

Two shortcuts, neither of which accepts anything the re-encode would reject: `fast=` (rpki.quickder)
decodes the usual shape of an object with a strict-DER Rust decoder first, and `checked=True` marks
bytes inside a whole that already passed (the EE certificate of a DER signed object).

`decode()` returns a freshly loaded value (re-encoding mutates the value it runs on) whose `.dump()`
returns the received bytes, so signatures are checked over exactly what was received.
"""

from __future__ import annotations

import re
from typing import Callable, TypeVar

from asn1crypto import core

from .errors import DERError, ObjectError

T = TypeVar("T", bound=core.Asn1Value)

# X.680 section 41.4: the PrintableString alphabet. The re-encode check cannot see a wrong character.
_PRINTABLE_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 '()+,-./:=?"
PRINTABLE = frozenset(_PRINTABLE_CHARS.encode())
_PRINTABLE_TEXT = re.compile(f"[{re.escape(_PRINTABLE_CHARS)}]*")


def _first_difference(a: bytes, b: bytes) -> int:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def decode(spec: type[T], data: bytes, source: str | None = None, what: str | None = None, *,
           checked: bool = False, fast: Callable[[bytes], bool] | None = None) -> T:
    """Decode `data` as `spec` and require it to be exactly DER; raise DERError otherwise.
    `checked`: the bytes lie inside a whole that passed this gate (its decode reached them), so
    they are only loaded. `fast`: a check of rpki.quickder; when it says the bytes are certainly
    DER, the re-encode is skipped."""
    if checked or (fast is not None and isinstance(data, (bytes, bytearray, memoryview))
                   and _certainly_der(fast, data)):
        return spec.load(bytes(data), strict=True)
    name = what or spec.__name__
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DERError(f"want bytes for {name}, got {type(data).__name__}", source)
    data = bytes(data)
    if not data:
        raise DERError(f"want a DER {name}, got 0 bytes", source, offset=0)
    try:
        value = spec.load(data, strict=True)
        value.native  # asn1crypto is lazy: force every byte to be parsed
        again = value.dump(force=True)
    except DERError:
        raise
    except Exception as e:  # noqa: BLE001 - asn1crypto raises ValueError, TypeError, KeyError, UnicodeError...
        raise DERError(f"want a DER {name}: {_describe(e)}", source) from None
    if again != data:
        at = _first_difference(again, data)
        raise DERError(
            f"want DER (X.690 section 10) for {name}: the canonical encoding differs "
            f"(it has {len(again)} bytes, the input {len(data)})",
            source,
            offset=at,
        )
    # parsed lazily again: the bytes passed the check above, so this cannot fail
    return spec.load(data, strict=True)


def _certainly_der(fast: Callable[[bytes], bool], data) -> bool:
    try:
        return fast(bytes(data))
    except Exception:  # noqa: BLE001 - a shape the fast path did not foresee: the full gate decides
        return False


def _describe(e: Exception) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    text = text[:200]
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def check_printable(value: str, source: str | None, field: str, rfc: str) -> None:
    """PrintableString alphabet (X.680 section 41.4), the one rule the re-encode check misses."""
    if _PRINTABLE_TEXT.fullmatch(value):
        return
    bad = sorted({c for c in value if ord(c) > 127 or ord(c) not in PRINTABLE})
    if bad:
        raise DERError(f"want PrintableString characters only, got {''.join(bad)!r} in {value!r}",
                       source, check=field, rfc=rfc)


def read(spec: type[T], data: bytes, source: str | None, what: str, noun: str, reader, *, checked: bool = False,
         fast: Callable[[bytes], bool] | None = None):
    """Decode `data` as `spec` (strict DER, unless `checked`), then build an object with
    `reader(value, data, source)`; asn1crypto's own exceptions on odd content become an ObjectError
    naming `noun`."""
    value = decode(spec, data, source, what, checked=checked, fast=fast)
    try:
        return reader(value, bytes(data), source)
    except ObjectError:
        raise
    except Exception as e:  # noqa: BLE001 - asn1crypto raises many types on odd content
        raise ObjectError(f"want a readable {noun}, got {type(e).__name__}: {e}", source) from None
