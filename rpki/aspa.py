"""Autonomous System Provider Authorizations (draft-ietf-sidrops-aspa-profile), in the RFC 6488
wrapper (rpki.cms). Both profiles parse to a customer AS and its providers.

- Current profile (section 3, draft 14 and later): version [0] EXPLICIT INTEGER, and it MUST be 1
  (so it is encoded: 1 is not the DEFAULT 0); customerASID; providers SEQUENCE (SIZE(1..MAX)) OF
  ASID, sorted ascending, each once, not containing the customer (section 3.3).
- Older profile (draft 13 and before, e.g. rpki-rs's aspa-bm.asa): version 0 (the DEFAULT, absent);
  providers SEQUENCE OF {providerASID, afiLimit OCTET STRING OPTIONAL}; `afi_limits` keeps the limit
  of each provider that had one (0001 IPv4, 0002 IPv6). The same sorted/unique/not-customer rules
  apply. A relying party following the current draft rejects this profile: `read()` returns it with
  `profile == "draft-13"` and `check(old_profile_ok=False)` (the default) says so.
- Reading: `from_econtent` decodes the eContent with rpki.quickder's strict DER reader in the
  current profile, else in the draft-13 one; when neither takes it, the current profile's DERError
  is raised.
- Section 4 (validation): the EE certificate has AS resources that are exactly the customer AS, no
  "inherit", and no IP resources.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from . import asn1, quickcms, quickder
from .cms import SignedObject, SignedPayload
from .errors import DERError, ObjectError
from .resources import AS_MAX, AsResources, IntervalSet

SEC = "draft-ietf-sidrops-aspa-profile section"
CURRENT, DRAFT13 = "current", "draft-13"


@dataclass
class Aspa(SignedPayload):
    """A customer AS and the set of its provider ASes."""

    customer: int
    providers: list[int]
    afi_limits: dict[int, int] = field(default_factory=dict)  # provider -> 4 or 6 (older profile only)
    profile: str = CURRENT
    signed: SignedObject | None = None
    source: str | None = None
    _problems: list[tuple[str, str, str]] = field(default_factory=list, repr=False)

    @classmethod
    def read(cls, data: bytes, source: str | None = None, *, ber_ok: bool = False) -> Aspa:
        signed = SignedObject.read(data, source, ber_ok=ber_ok)
        signed.expect(asn1.OID_CT_ASPA, "id-ct-ASPA", f"{SEC} 2")
        aspa = cls.from_econtent(signed.econtent, source)
        aspa.signed = signed
        return aspa

    @classmethod
    def from_econtent(cls, econtent: bytes, source: str | None = None) -> Aspa:
        """Read the ASProviderAttestation of either profile (the bare eContent)."""
        try:
            value = quickder.strict(quickcms.ASProviderAttestation, econtent, source, "ASProviderAttestation (section 3)")
        except DERError as first:
            try:
                value = quickder.strict(quickcms.ASProviderAttestationV0, econtent, source,
                                        "ASProviderAttestation (draft 13)")
            except DERError:
                raise first from None
            return cls._build(value.version, value.customer_asid,
                              [(item.provider_asid, item.afi_limit) for item in value.providers], DRAFT13, source)
        return cls._build(value.version, value.customer_asid, [(asn, None) for asn in value.providers], CURRENT, source)

    @classmethod
    def _build(cls, version: int, customer: int, items: list[tuple[int, bytes | None]], profile: str, source) -> Aspa:
        """The checks of the eContent: `items` holds (provider AS, afiLimit octets or None) in order."""
        p: list[tuple[str, str, str]] = []
        want_version = 1 if profile == CURRENT else 0
        if version != want_version:
            p.append(("version", f"{SEC} 3.1", f"want version {want_version} ({profile} profile), got {version}"))
        if not 0 <= customer <= AS_MAX:
            raise ObjectError(f"want an AS number 0..{AS_MAX}, got {customer}", source,
                              check="customerASID", rfc=f"{SEC} 3.2")
        providers, limits = [], {}
        for asn, afi in items:
            if profile != CURRENT and afi is not None:
                if afi not in (b"\x00\x01", b"\x00\x02"):
                    p.append(("providers.afiLimit", "draft-ietf-sidrops-aspa-profile-13 section 3.3",
                              f"want afiLimit 0001 or 0002, got {bytes(afi).hex()}"))
                else:
                    limits[asn] = 4 if afi == b"\x00\x01" else 6
            if not 0 <= asn <= AS_MAX:
                raise ObjectError(f"want a provider AS number 0..{AS_MAX}, got {asn}", source,
                                  check="providers", rfc=f"{SEC} 3.3")
            providers.append(asn)
        if not providers:
            p.append(("providers", f"{SEC} 3.3", "want at least one provider"))
        if providers != sorted(providers):
            p.append(("providers", f"{SEC} 3.3", f"want providers sorted ascending, got {providers}"))
        if len(set(providers)) != len(providers):
            p.append(("providers", f"{SEC} 3.3", "want each provider once, got duplicates"))
        if customer in providers:
            p.append(("providers", f"{SEC} 3.3", f"want the customer AS{customer} not among its providers"))
        return cls(customer=customer, providers=providers, afi_limits=limits, profile=profile, source=source,
                   _problems=p)

    # ---- checks -----------------------------------------------------------------------------------
    def problems(self, at: datetime | None = None, old_profile_ok: bool = False) -> list[tuple[str, str, str]]:
        p = list(self._problems)
        if self.profile != CURRENT and not old_profile_ok:
            p.insert(0, ("eContent", f"{SEC} 3", "want the current ASPA profile (version 1, providers a SEQUENCE OF "
                         "ASID), got the draft-13 profile (providers with afiLimit)"))
        if self.signed is not None:
            p += self.signed.problems(at)
            ee = self.signed.ee
            want = AsResources(IntervalSet(((self.customer, self.customer),)))
            if ee.as_resources is None or ee.as_resources.inherit or ee.as_resources != want:
                p.append(("EE autonomousSysIds", f"{SEC} 4",
                          f"want AS resources exactly the customer AS{self.customer}, got {ee.as_resources}"))
            if ee.ip_resources is not None:
                p.append(("EE ipAddrBlocks", f"{SEC} 4", "want no IP resources in an ASPA's EE certificate"))
        return p
