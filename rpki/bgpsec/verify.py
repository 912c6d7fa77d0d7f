"""Validating a BGPsec UPDATE (RFC 8205 section 5) with algorithm suite 1 (RFC 8608).

The result is Valid or Not Valid (section 5.1), and for Not Valid the first reason found:

    malformed            the attribute breaks section 3 (section 5.2: treat-as-withdraw, RFC 7606)
    pcount-zero          a Secure_Path Segment with pCount 0 (section 3.1: only a route server that
                         is configured so may send one; we know of none)
    peer-as-mismatch     the most recent AS is not the peer's AS (section 5.2)
    unsupported-suite    no Signature_Block of a suite we support (section 5.2: Not Valid)
    no-key               no router key with the segment's SKI bound to its AS (section 5.2)
    bad-signature        no key for the SKI verifies the signature (section 5.2)

Signatures are checked from the most recent to the origin; the first that fails decides. `Verifier`
keeps the answers it found by the signed octets, the SKI and the signature: the same three give the
same answer, so an answer is reused rather than computed again (and counted as reused).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from .keys import RouterKeys
from .octets import Octets, Prefix
from .path import BgpsecError, BgpsecPath, decode
from .sign import SUITE_1

SUPPORTED_SUITES = (SUITE_1,)
REASONS = ("malformed", "pcount-zero", "peer-as-mismatch", "unsupported-suite", "no-key", "bad-signature")
_ECDSA = ec.ECDSA(hashes.SHA256())
_CACHE_MAX = 1 << 20


@dataclass(frozen=True, slots=True)
class Verdict:
    """Valid, or Not Valid with a reason (one of REASONS), a sentence, and the hop that failed
    (counted from the origin, 1; None when the fault is not one hop's)."""

    valid: bool
    reason: str = ""
    detail: str = ""
    hop: int | None = None

    @property
    def state(self) -> str:
        return "valid" if self.valid else "not-valid"

    def __str__(self) -> str:
        return "valid" if self.valid else f"not valid: {self.reason}: {self.detail}"


VALID = Verdict(True)


class Verifier:
    """Checks BGPsec paths against a set of router keys, reusing answers for identical signed octets.
    `verified`, `reused` and `seconds` count the work done."""

    def __init__(self, keys: RouterKeys, reuse: bool = True):
        self.keys = keys
        self.reuse = reuse
        self._answers: dict[tuple[bytes, bytes, bytes], bool] = {}
        self.verified = self.reused = 0
        self.seconds = 0.0

    def verify_value(self, value: bytes, target_as: int, prefix: Prefix, peer_as: int | None = None) -> Verdict:
        """The verdict on a BGPsec_PATH attribute's value: decoded first, a fault being `malformed`."""
        try:
            path = decode(value)
        except BgpsecError as e:
            return Verdict(False, "malformed", str(e))
        return self.verify(path, target_as, prefix, peer_as)

    def verify(self, path: BgpsecPath, target_as: int, prefix: Prefix, peer_as: int | None = None) -> Verdict:
        """The verdict on `path` for `prefix`, as received by `target_as` from `peer_as` (None: not known,
        as for a capture without the session's OPEN; the peer check is then skipped)."""
        segments = path.segments
        n = len(segments)
        for i, seg in enumerate(segments):
            if seg.pcount == 0:
                return Verdict(False, "pcount-zero", f"AS{seg.asn} has pCount 0", n - i)
        if peer_as is not None and segments[0].asn != peer_as:
            return Verdict(False, "peer-as-mismatch",
                           f"the most recent AS is AS{segments[0].asn}, the peer is AS{peer_as}", n)
        block = next((b for b in path.blocks if b.suite in SUPPORTED_SUITES), None)
        if block is None:
            suites = ", ".join(str(b.suite) for b in path.blocks)
            return Verdict(False, "unsupported-suite", f"algorithm suite {suites}; want 1 (RFC 8608)")
        sigs = block.signatures
        octets = Octets(target_as, segments, sigs[1:], block.suite, prefix)
        for i, (seg, sig) in enumerate(zip(segments, sigs)):
            keys = self.keys.find(sig.ski, seg.asn)
            if not keys:
                what = "bound to AS" if self.keys.knows(sig.ski) else "for AS"
                return Verdict(False, "no-key", f"no router key with SKI {sig.ski.hex().upper()} {what}{seg.asn}", n - i)
            if not self._check(keys, sig.ski, sig.signature, octets.of(i)):
                return Verdict(False, "bad-signature",
                               f"the signature of AS{seg.asn} (SKI {sig.ski.hex().upper()}) does not verify", n - i)
        return VALID

    def _check(self, keys, ski: bytes, signature: bytes, data: bytes) -> bool:
        if self.reuse:
            known = self._answers.get((data, ski, signature))
            if known is not None:
                self.reused += 1
                return known
        t = time.perf_counter()
        ok = False
        for key in keys:  # section 5.2: several keys may share an SKI; any that verifies will do
            self.verified += 1
            try:
                key.verify(signature, data, _ECDSA)
            except InvalidSignature:
                continue
            ok = True
            break
        self.seconds += time.perf_counter() - t
        if self.reuse:
            if len(self._answers) >= _CACHE_MAX:
                self._answers.clear()
            self._answers[(data, ski, signature)] = ok
        return ok
