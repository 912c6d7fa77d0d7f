"""The validated payloads a relying party outputs, and how both tools print a prefix.

Three lists, each entry tagged with the trust anchor it came from:

- route origins: VRPs (RFC 6811: prefix, maxLength, origin ASN), as `Origin(vrp, ta, expires)`;
- BGPsec router keys (RFC 8209, RFC 8210 section 5.10): ASN, Subject Key Identifier (20 octets,
  RFC 6487 section 4.8.2) and the DER SubjectPublicKeyInfo, as `RouterKey`;
- ASPAs (draft-ietf-sidrops-aspa-profile): customer ASN and its provider ASNs, as `ASPA`.

`Payloads` holds them as read (duplicates included, as Routinator's own outputs show them) and
sorts them for writing: origins by address family, prefix address, prefix length, maxLength, ASN,
trust anchor; keys by ASN, SKI, key; ASPAs by customer, providers.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from datetime import datetime
from ipaddress import IPv4Network, IPv6Network

from ..rov import VRP, VRPTable

MAX_ASN = 2**32 - 1  # RFC 6793
MAX_TA_LENGTH = 256
NO_TA = "N/A"  # Routinator's word for payloads without a trust anchor (local exceptions)
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"  # the JSON outputs' UTC times

Prefix = IPv4Network | IPv6Network


@dataclass(frozen=True, slots=True)
class Origin:
    """A VRP with the trust anchor it was validated under and, when known, the moment (Unix time)
    its validation chain expires (rpki-client's `expires`)."""

    vrp: VRP
    ta: str = NO_TA
    expires: int | None = None

    def __reduce__(self):  # a slotted frozen dataclass pickles its state as a dict: twice the cost
        return Origin, (self.vrp, self.ta, self.expires)

    def sort_key(self):
        p = self.vrp.prefix
        return (p.version, int(p.network_address), p.prefixlen, self.vrp.max_length, self.vrp.asn,
                self.ta, -1 if self.expires is None else self.expires)


@dataclass(frozen=True, slots=True)
class RouterKey:
    """A BGPsec router key: ASN, SKI (20 octets) and DER SubjectPublicKeyInfo."""

    asn: int
    ski: bytes
    spki: bytes
    ta: str = NO_TA
    expires: int | None = None

    @property
    def ski_hex(self) -> str:
        return self.ski.hex().upper()

    @property
    def spki_b64(self) -> str:
        return base64.b64encode(self.spki).decode("ascii")

    def sort_key(self):
        return (self.asn, self.ski, self.spki, self.ta, -1 if self.expires is None else self.expires)


@dataclass(frozen=True, slots=True)
class ASPA:
    """A validated ASPA payload: customer ASN and its provider ASNs, sorted and distinct."""

    customer: int
    providers: tuple[int, ...]
    ta: str = NO_TA
    expires: int | None = None

    def sort_key(self):
        return (self.customer, self.providers, self.ta, -1 if self.expires is None else self.expires)


@dataclass
class Payloads:
    """One relying party's output: route origins, router keys and ASPAs, and when it was made."""

    origins: list[Origin] = field(default_factory=list)
    router_keys: list[RouterKey] = field(default_factory=list)
    aspas: list[ASPA] = field(default_factory=list)
    generated: datetime | None = None  # the validation run's time, when the input says it

    def sorted(self) -> Payloads:
        return Payloads(sorted(self.origins, key=Origin.sort_key), sorted(self.router_keys, key=RouterKey.sort_key),
                        sorted(self.aspas, key=ASPA.sort_key), self.generated)

    def vrp_table(self) -> VRPTable:
        """The route origins as a table for route origin validation (rpki.rov)."""
        return VRPTable(o.vrp for o in self.origins)

    def __len__(self) -> int:
        return len(self.origins) + len(self.router_keys) + len(self.aspas)


def format_address(addr) -> str:
    """An address as Routinator (Rust's Display) and rpki-client (inet_ntop) print it: RFC 5952
    for IPv6, with IPv4-mapped addresses as ::ffff:192.0.2.1 whatever Python's version does."""
    if addr.version == 6 and addr.ipv4_mapped is not None:
        return f"::ffff:{addr.ipv4_mapped}"
    return str(addr)


def format_prefix(prefix: Prefix) -> str:
    return f"{format_address(prefix.network_address)}/{prefix.prefixlen}"
