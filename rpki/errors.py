"""Errors for RPKI objects.

`ObjectError` is the project's `InputError` (so the command line prints one line and exits 2) with
two more facts: the check or field that failed, and the RFC section that demands it. Its text reads
"FILE[:offset N]: [RFC 6487 section 4.8.4] keyUsage: want critical, got non-critical".
"""

from __future__ import annotations

from bgpsim.base.errors import InputError


class ObjectError(InputError):
    """An RPKI object (certificate, CRL, TAL, resource extension, ...) is malformed or breaks its profile."""

    def __init__(
        self,
        message: str,
        source: str | None = None,
        *,
        offset: int | None = None,
        check: str | None = None,
        rfc: str | None = None,
    ):
        self.check = check
        self.rfc = rfc
        self.offset = offset
        text = message
        if check:
            text = f"{check}: {text}"
        if rfc:
            text = f"[{rfc}] {text}"
        super().__init__(text, source, f"offset {offset}" if offset is not None else None)
        self.reason = message


class DERError(ObjectError):
    """The bytes are not a DER encoding of the expected ASN.1 type (X.690 section 10)."""


def raise_first(found: list[tuple[str, str, str]], source: str | None) -> None:
    """Raise ObjectError for the first of `found` ((check, RFC section, message) triples), saying
    how many more there are; nothing when `found` is empty."""
    if found:
        check, rfc, msg = found[0]
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise ObjectError(msg + more, source, check=check, rfc=rfc)
