"""URIs in certificates as asn1crypto reads and writes them (RFC 5280 section 4.2.1.6, RFC 3987 section 3).

The CRLDP, AIA and SIA extensions (RFC 6487 sections 4.8.6 to 4.8.8) carry URIs as IA5Strings.
asn1crypto's `x509.URI` gives such a URI as an IRI (RFC 3987 section 3.2: the host decoded from
IDNA and lower-cased, percent-escapes of UTF-8 decoded) and writes an IRI back as a URI (section
3.1); its DER gate (rpki.der) re-encodes every URI that way, so a URI that does not come back byte
for byte is not DER to it. The fast readers need both facts for the same bytes: the text the
asn1crypto readers give (`text`) and whether the gate keeps the bytes (`round_trips`). Both are
asked of asn1crypto itself, through its public `x509.URI` type, so the two paths cannot differ.

A path of unreserved characters only (RFC 3986 section 2.3), the usual RPKI path, is left as it is
by both mappings, so only the scheme and authority of such a URI are converted: few distinct ones
occur, and each is converted once.
"""

from __future__ import annotations

import re
from functools import lru_cache

from asn1crypto import parser, x509

# scheme://authority, then a path of unreserved characters only (RFC 3986 sections 3 and 2.3)
PLAIN_PATH = re.compile(r"([a-z][a-z0-9+.-]*://[^/?#%]*)(?:/[A-Za-z0-9._~-]+)+/?")
_IA5STRING = 22  # X.680 universal tag of IA5String


def text(uri: str) -> str:
    """The URI as the asn1crypto readers give it (an IRI); ValueError where asn1crypto cannot read it."""
    m = PLAIN_PATH.fullmatch(uri)
    if m:
        head = _mapped(m.group(1) + "/")[0]
        if head is not None and head.endswith("/"):
            return head[:-1] + uri[m.end(1):]
    iri = _mapped(uri)[0]
    if iri is None:
        raise ValueError(f"want a URI asn1crypto reads, got {uri!r}")
    return iri


def round_trips(uri: str) -> bool:
    """asn1crypto reads the URI as an IRI and writes it back as these very bytes (so its DER gate keeps them)."""
    m = PLAIN_PATH.fullmatch(uri)
    return _mapped(m.group(1) + "/" if m else uri)[1]


@lru_cache(maxsize=4096)
def _mapped(uri: str) -> tuple[str | None, bool]:
    """(the IRI asn1crypto reads, or None if it cannot; whether it writes the same URI back)."""
    try:
        der = parser.emit(0, 0, _IA5STRING, uri.encode("ascii"))
        iri = x509.URI.load(der).native
    except Exception:  # noqa: BLE001 - asn1crypto raises several types on odd URIs
        return None, False
    try:
        return iri, x509.URI(iri).dump() == der
    except Exception:  # noqa: BLE001 - not writable back: the full gate decides
        return iri, False
