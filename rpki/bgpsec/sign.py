"""Signing BGPsec UPDATEs (RFC 8205 section 4) with algorithm suite 1 (RFC 8608 section 3: ECDSA
P-256 with SHA-256, the signature a DER ECDSA-Sig-Value).

`originate` starts a path at the origin AS (section 4.2, one Secure_Path Segment); `forward` adds the
next AS's segment and signature in front (section 4.3). Both sign the octets of `octets.Octets` for
the AS the UPDATE goes to next (the target AS).

Signatures are deterministic (RFC 6979: k derived from the key and the hash), so the same key and
the same path give the same bytes, run after run. `nonce` exists for the RFC 8208 / RFC 8608
examples, which were signed with a fixed k (RFC 6979 A.2.5, the nonce of the message "sample"): with it
the signature is computed from that k as ECDSA defines it (SEC 1 section 4.1.3), so the published
bytes can be reproduced.
"""

from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from .keys import SigningKey
from .octets import Octets, Prefix
from .path import BgpsecPath, BgpsecError, Segment, Signature, SignatureBlock

SUITE_1 = 1  # RFC 8608 section 3: ECDSA P-256, SHA-256
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
_ECDSA = ec.ECDSA(hashes.SHA256(), deterministic_signing=True)


def sign_octets(key: ec.EllipticCurvePrivateKey, data: bytes, nonce: int | None = None) -> bytes:
    """The DER ECDSA P-256 / SHA-256 signature of `data`."""
    if nonce is None:
        return key.sign(data, _ECDSA)
    n = P256_ORDER
    if not 0 < nonce < n:
        raise ValueError("the nonce must lie in 1 .. n-1")
    r = ec.derive_private_key(nonce, ec.SECP256R1()).public_key().public_numbers().x % n  # x(kG)
    z = int.from_bytes(hashlib.sha256(data).digest(), "big")  # 256 bits: the whole hash (SEC 1 4.1.3 step 5)
    s = pow(nonce, -1, n) * (z + r * key.private_numbers().private_value) % n
    return encode_dss_signature(r, s)


def originate(key: SigningKey, prefix: Prefix, target_as: int, pcount: int = 1, flags: int = 0,
              nonce: int | None = None) -> BgpsecPath:
    """The BGPsec_PATH of `prefix` as its origin AS sends it to `target_as` (section 4.2)."""
    return forward(None, key, prefix, target_as, pcount, flags, nonce)


def forward(path: BgpsecPath | None, key: SigningKey, prefix: Prefix, target_as: int, pcount: int = 1,
            flags: int = 0, nonce: int | None = None) -> BgpsecPath:
    """`path` as the AS of `key` sends it on to `target_as`: its Secure_Path Segment in front, and its
    signature in front of the suite-1 block (section 4.3). A path without a suite-1 block cannot be
    signed with suite 1."""
    if key.asn is None:
        raise BgpsecError("the signing key is bound to no AS", key.source, rfc="RFC 8205 section 4.2")
    seg = Segment(key.asn, pcount, flags)
    if path is None:
        segments, older = (seg,), ()
    else:
        block = path.block(SUITE_1)
        if block is None or len(path.blocks) != 1:
            raise BgpsecError("want a path with exactly one Signature_Block, of algorithm suite 1",
                              rfc="RFC 8205 section 4.3")
        segments, older = (seg,) + path.segments, block.signatures
    data = Octets(target_as, segments, older, SUITE_1, prefix).of(0)
    sig = Signature(key.ski, sign_octets(key.key, data, nonce))
    return BgpsecPath(segments, (SignatureBlock(SUITE_1, (sig,) + older),))
