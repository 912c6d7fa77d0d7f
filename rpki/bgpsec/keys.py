"""BGPsec router keys: public keys looked up by SKI and AS for validation, private keys for signing.

RFC 8205 section 5.2: a signature is checked with the key whose SKI the Signature Segment names and
that is bound to the AS of its Secure_Path Segment. RFC 8608 section 3: keys are ECDSA P-256; the SKI
is the SHA-1 of the subjectPublicKey BIT STRING (RFC 6487 section 4.8.2).

Where keys come from:
- a relying party's output (our `rpki validate` JSON, rpki-client's JSON, Routinator's): `bgpsec_keys`
  (`routerKeys`), each with ASN, SKI and SubjectPublicKeyInfo;
- BGPsec router certificates (RFC 8209; DER or PEM): the AS from their RFC 3779 AS resources;
- key files (PEM or DER; private keys, SubjectPublicKeyInfo): the AS from a `ski-list.txt` in the same
  folder (NIST BGP-SRx's "64496-SKI: AB4D..." lines) or from the file name (`AS64496`, `bird_64496.`,
  `_64496.`); a key file that names no AS is trusted for any AS, and the loader says so.
A directory is read file by file; files that hold no EC key (a CA's RSA keys, state files) are passed
over there, while a file named on its own must hold a key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from bgpsim.base.errors import InputError, stderr_warning

from ..build import ski_of_key as ski_of  # the SKI of RFC 6487 section 4.8.2, from a key
from ..cert import ResourceCertificate
from ..vrps import read_file

ANY_AS = None  # a key whose file binds it to no AS
MAX_KEY_FILE = 1 << 20
_SKI_LINE = re.compile(r"^\s*(\d+)-SKI:\s*([0-9A-Fa-f]{40})\s*$")
_NAME_AS = re.compile(r"AS(\d{1,10})(?!\d)|(?:^|_)(\d{1,10})(?=\.)", re.IGNORECASE)


def _p256(key, source: str):
    if not isinstance(key, (ec.EllipticCurvePublicKey, ec.EllipticCurvePrivateKey)):
        raise InputError(f"want an ECDSA P-256 key (RFC 8608 section 3), got {type(key).__name__.lstrip('_')}", source)
    if not isinstance(key.curve, ec.SECP256R1):
        raise InputError(f"want an ECDSA P-256 key (RFC 8608 section 3), got curve {key.curve.name}", source)
    return key


@dataclass(frozen=True, slots=True)
class SigningKey:
    """A router's private key, the AS it signs for and its SKI."""

    asn: int | None
    ski: bytes
    key: ec.EllipticCurvePrivateKey
    source: str = ""


class RouterKeys:
    """Public router keys by SKI: `find(ski, asn)` gives the keys bound to that AS (or to any AS).
    A key is bound to AS ranges (a router certificate may name several ASes, RFC 8209 section 3.1.3.5)."""

    def __init__(self):
        self._by_ski: dict[bytes, list[tuple[tuple[tuple[int, int], ...] | None, ec.EllipticCurvePublicKey]]] = {}

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_ski.values())

    def add(self, asns, key: ec.EllipticCurvePublicKey, ski: bytes | None = None) -> None:
        """Bind `key` to `asns`: an AS, a tuple of (low, high) AS ranges, or ANY_AS."""
        ranges = asns if asns is ANY_AS or isinstance(asns, tuple) else ((asns, asns),)
        have = self._by_ski.setdefault(ski or ski_of(key), [])
        if all(r != ranges or k.public_numbers() != key.public_numbers() for r, k in have):
            have.append((ranges, key))

    def find(self, ski: bytes, asn: int) -> list[ec.EllipticCurvePublicKey]:
        """The keys with this SKI bound to `asn` (RFC 8205 section 5.2 tries each until one verifies)."""
        return [k for r, k in self._by_ski.get(ski, ()) if r is None or any(lo <= asn <= hi for lo, hi in r)]

    def knows(self, ski: bytes) -> bool:
        return ski in self._by_ski

    def ases(self, ski: bytes) -> list:
        """The AS ranges each key with this SKI is bound to (None: any AS)."""
        return [r for r, _ in self._by_ski.get(ski, ())]

    @classmethod
    def load(cls, paths, warn=stderr_warning) -> RouterKeys:
        """Public keys from each path: a relying party's JSON, router certificates, key files, or a
        directory of them."""
        keys = cls()
        found: dict[Path, int] = {}  # keys per folder
        for path, asn_of, lone in _files(paths):
            if path.suffix.lower() == ".json":
                try:
                    payloads = read_file(path)
                except InputError as e:
                    if lone:
                        raise
                    warn(f"{path}: passed over, not a relying party's output ({e.message})")
                    continue
                found[path.parent] = found.get(path.parent, 0) + len(payloads.router_keys)
                for rk in payloads.router_keys:
                    keys.add(rk.asn, _p256(serialization.load_der_public_key(rk.spki), f"{path}: AS{rk.asn}"), rk.ski)
                continue
            data = _read(path)
            got = _certificate(data, str(path))
            if got is not None:
                ranges, pub = got
                keys.add(ranges or asn_of(ski_of(pub)), pub)
                found[path.parent] = found.get(path.parent, 0) + 1
                continue
            key = _key(data, str(path), lone)
            if key is None:
                continue
            pub = key.public_key() if isinstance(key, ec.EllipticCurvePrivateKey) else key
            asn = asn_of(ski_of(pub))
            if asn is ANY_AS:
                warn(f"{path}: the key names no AS (no ski-list.txt entry, no AS in the file name): "
                     f"it is trusted for any AS")
            keys.add(asn, pub)
            found[path.parent] = found.get(path.parent, 0) + 1
        _some_in_each(paths, found, "router key or certificate")
        return keys


def signing_keys(paths, warn=stderr_warning) -> dict[int, SigningKey]:
    """Private router keys by the AS they sign for (the first one found for an AS)."""
    out: dict[int, SigningKey] = {}
    found: dict[Path, int] = {}  # keys per folder
    for path, asn_of, lone in _files(paths):
        data = _read(path)
        key = _key(data, str(path), lone, private=True)
        if key is None:
            continue
        ski = ski_of(key.public_key())
        asn = asn_of(ski)
        if asn is ANY_AS:
            if lone:
                raise InputError("the private key names no AS: want AS<number> in its file name or a "
                                 "ski-list.txt entry beside it", str(path))
            continue
        out.setdefault(asn, SigningKey(asn, ski, key, str(path)))
        found[path.parent] = found.get(path.parent, 0) + 1
    _some_in_each(paths, found, "private router key naming its AS")
    return out


def _some_in_each(paths, found: dict[Path, int], what: str) -> None:
    """A folder given that held nothing of use is an error: every route checked against it would be
    not-valid (no-key), for want of a key someone forgot to put there."""
    for p in map(Path, paths):
        if p.is_dir() and not found.get(p):
            raise InputError(f"no {what} in this folder", str(p))


def _files(paths):
    """(path, SKI -> AS, named on its own) for each key file under `paths`."""
    for p in paths:
        p = Path(p)
        if p.is_dir():
            skis = _ski_list(p / "ski-list.txt")
            for f in sorted(p.iterdir()):
                if f.is_file() and f.name != "ski-list.txt":
                    yield f, _asn_lookup(f, skis), False
        elif p.exists():
            yield p, _asn_lookup(p, _ski_list(p.parent / "ski-list.txt")), True
        else:
            raise InputError("no such file or directory", str(p))


def _ski_list(path: Path) -> dict[bytes, int]:
    """NIST BGP-SRx's ski-list.txt: "ASN-SKI: HEX" lines (the first AS listed for an SKI wins)."""
    if not path.is_file():
        return {}
    out: dict[bytes, int] = {}
    for line in _read(path).decode("utf-8", "replace").splitlines():
        m = _SKI_LINE.match(line)
        if m:
            out.setdefault(bytes.fromhex(m[2]), int(m[1]))
    return out


def _asn_lookup(path: Path, skis: dict[bytes, int]):
    m = _NAME_AS.search(path.name)
    named = int(m[1] or m[2]) if m else ANY_AS
    if named is not ANY_AS and named >= 1 << 32:
        named = ANY_AS
    return lambda ski: skis.get(ski, named)


def _read(path: Path) -> bytes:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_KEY_FILE + 1)
    except OSError as e:
        raise InputError(e.strerror or str(e), str(path)) from None
    if len(data) > MAX_KEY_FILE:
        raise InputError(f"want a key or certificate file of at most {MAX_KEY_FILE} bytes", str(path))
    return data


def _certificate(data: bytes, source: str):
    """(AS ranges, public key) of a router certificate in `data`, or None when it holds no certificate.
    The ranges are those of its RFC 3779 extension; none for a plain X.509 certificate (NIST's demo ones)."""
    if b"-----BEGIN CERTIFICATE-----" in data:
        try:
            data = x509.load_pem_x509_certificate(data).public_bytes(serialization.Encoding.DER)
        except ValueError as e:
            raise InputError(f"bad PEM certificate: {e}", source) from None
    elif not data.startswith(b"\x30\x82") or len(data) < 200:
        return None
    try:
        cert = x509.load_der_x509_certificate(data)
    except ValueError:
        return None
    pub = _p256(cert.public_key(), source)
    try:
        rc = ResourceCertificate.parse(data, source)
    except InputError:
        return (), pub
    if rc.as_resources is None or rc.as_resources.inherit:
        return (), pub
    return tuple(rc.as_resources.ids.ranges), pub


def _key(data: bytes, source: str, lone: bool, private: bool = False):
    """The EC key in `data` (PEM or DER; private, or public when `private` is false). In a directory
    (`lone` false) a file that holds no such key gives None; named on its own it is an error."""
    loaders = [serialization.load_pem_private_key, serialization.load_der_private_key]
    if not private:
        loaders += [serialization.load_pem_public_key, serialization.load_der_public_key]
    for load in loaders:
        try:
            key = load(data, None) if "private" in load.__name__ else load(data)
        except (ValueError, TypeError, UnsupportedAlgorithm):
            continue
        if not lone and not isinstance(key, (ec.EllipticCurvePrivateKey, ec.EllipticCurvePublicKey)):
            return None
        return _p256(key, source)
    if lone:
        raise InputError(f"want a {'private' if private else 'router'} key (PEM or DER) or a router certificate", source)
    return None
