"""Validating a BGPsec UPDATE (RFC 8205 section 5) with algorithm suite 1 (RFC 8608).

Section 5.1 has two results, Valid and Not Valid; section 5.2 adds two ways out before any signature
is checked. So a `Verdict` has one of four states, and but for Valid the reason:

    withdraw   the checks before the signatures fail: treat-as-withdraw (RFC 7606)
                 malformed          the attribute breaks section 3, or a Signature_Block holds not one
                                    Signature Segment per Secure_Path Segment
                 peer-as-mismatch   the most recent AS is not the peer's (its AS in the OPEN)
                 pcount-zero        the most recent segment has pCount 0 (only a route server
                                    configured so may send that; we know of none)
                 confed-segment     a segment has the Confed_Segment flag, from a peer outside our
                                    confederation (we model none)
    unsigned   no Signature_Block of a suite we support: the route counts as unsigned
                 unsupported-suite
    not-valid  a supported Signature_Block fails
                 no-key             no router key with the segment's SKI bound to its AS
                 bad-signature      no key with that SKI and AS verifies the signature
    valid      every signature of a supported Signature_Block verifies

Signatures are checked from the most recent to the origin, and the first that fails decides (section
7.3 allows stopping there). `Verifier` hashes the octets once (SHA-256, the suite's digest) and keeps
the answers it found by that digest, the SKI, the AS and the signature: the same four give the same
answer, so an answer is reused rather than computed again (and counted as reused).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from hashlib import sha256

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed

from .keys import RouterKeys
from .octets import Octets, Prefix
from .path import BgpsecError, BgpsecPath, decode
from .sign import SUITE_1

SUPPORTED_SUITES = (SUITE_1,)
STATES = {"malformed": "withdraw", "peer-as-mismatch": "withdraw", "pcount-zero": "withdraw",
          "confed-segment": "withdraw", "unsupported-suite": "unsigned", "no-key": "not-valid",
          "bad-signature": "not-valid"}
_PREHASHED = ec.ECDSA(Prehashed(hashes.SHA256()))
_CACHE_MAX = 1 << 20


@dataclass(frozen=True, slots=True)
class Verdict:
    """Valid, or the reason it is not (a key of STATES), a sentence, and the hop that failed (counted
    from the origin, 1; None when the fault is not one hop's)."""

    valid: bool
    reason: str = ""
    detail: str = ""
    hop: int | None = None

    @property
    def state(self) -> str:
        """valid, not-valid, unsigned or withdraw."""
        return "valid" if self.valid else STATES[self.reason]

    def __str__(self) -> str:
        return "valid" if self.valid else f"{self.state}: {self.reason}: {self.detail}"


VALID = Verdict(True)


class Verifier:
    """Checks BGPsec paths against a set of router keys, reusing answers for identical signed octets.
    `verified`, `reused` and `seconds` count the work done."""

    def __init__(self, keys: RouterKeys, reuse: bool = True):
        self.keys = keys
        self.reuse = reuse
        self._answers: dict[tuple[bytes, bytes, int, bytes], bool] = {}
        self.verified = self.reused = 0
        self.seconds = 0.0

    def verify_value(self, value: bytes, target_as: int, prefix: Prefix, peer_as: int | None = None) -> Verdict:
        """The verdict on a BGPsec_PATH attribute's value: decoded first, a fault being `malformed`."""
        try:
            path = decode(value)
        except BgpsecError as e:
            return Verdict(False, "malformed", str(e))
        return self.verify(path, target_as, prefix, peer_as)

    def verify(self, path: BgpsecPath, target_as: int, prefix: Prefix, peer_as: int | None = None,
               checks: list | None = None) -> Verdict:
        """The verdict on `path` for `prefix`, as received by `target_as` from `peer_as` (None: not known,
        as for a capture without the session's OPEN; the peer check is then skipped). `checks`, when
        given, gets the key of each signature check made or answered again: (digest, SKI, AS, signature)."""
        segments = path.segments
        n = len(segments)
        if segments[0].pcount == 0:
            return Verdict(False, "pcount-zero", f"the most recent AS, AS{segments[0].asn}, has pCount 0", n)
        for i, seg in enumerate(segments):
            if seg.confed:
                return Verdict(False, "confed-segment", f"AS{seg.asn} has the Confed_Segment flag", n - i)
        if peer_as is not None and segments[0].asn != peer_as:
            return Verdict(False, "peer-as-mismatch",
                           f"the most recent AS is AS{segments[0].asn}, the peer is AS{peer_as}", n)
        block = next((b for b in path.blocks if b.suite in SUPPORTED_SUITES), None)
        if block is None:
            suites = ", ".join(str(b.suite) for b in path.blocks)
            return Verdict(False, "unsupported-suite", f"algorithm suite {suites}; we support 1 (RFC 8608)")
        sigs = block.signatures
        octets = Octets(target_as, segments, sigs[1:], block.suite, prefix)
        for i, (seg, sig) in enumerate(zip(segments, sigs)):
            keys = self.keys.find(sig.ski, seg.asn)
            if not keys:
                what = "bound to AS" if self.keys.knows(sig.ski) else "for AS"
                return Verdict(False, "no-key", f"no router key with SKI {sig.ski.hex().upper()} {what}{seg.asn}", n - i)
            if not self._check(keys, sig.ski, seg.asn, sig.signature, octets.of(i), checks):
                return Verdict(False, "bad-signature",
                               f"the signature of AS{seg.asn} (SKI {sig.ski.hex().upper()}) does not verify", n - i)
        return VALID

    def _check(self, keys, ski: bytes, asn: int, signature: bytes, data: bytes, checks: list | None) -> bool:
        t = time.perf_counter()
        key = (sha256(data).digest(), ski, asn, signature)
        if checks is not None:
            checks.append(key)
        digest = key[0]
        if self.reuse:
            known = self._answers.get(key)
            if known is not None:
                self.reused += 1
                self.seconds += time.perf_counter() - t
                return known
        ok = False
        for public in keys:  # section 5.2: several keys may share an SKI; any that verifies will do
            self.verified += 1
            try:
                public.verify(signature, digest, _PREHASHED)
            except InvalidSignature:
                continue
            ok = True
            break
        self.seconds += time.perf_counter() - t
        if self.reuse:
            if len(self._answers) >= _CACHE_MAX:
                self._answers.clear()
            self._answers[key] = ok
        return ok
