"""BGPsec with real signatures in the timed engine: adopters sign every UPDATE they send to another
adopter and verify every one they receive (RFC 8205 sections 4 and 5, algorithm suite 1).

Who signs what:
* a BGPsec session exists between two adopters (both advertise the capability, RFC 8205 section 2.2);
  toward any other neighbour an UPDATE goes unsigned, with an AS_PATH (section 4.4);
* an adopter that originates a prefix signs a one-segment path toward each BGPsec neighbour;
* an adopter that forwards a route it received signed adds its segment and signature (section 4.3);
  one it received unsigned it forwards unsigned (section 4.1);
* the attacker holds only its own key (registered when it adopts). What it announces beyond itself
  — the victim as origin, a shortened path — it signs with its own key under the SKIs of the ASes it
  names, so the key lookup succeeds and the signature check fails; that is the best it can do.

The receiver's verdict replaces the abstract `secure` attribute of `defences.bgpsec.BGPsec`: valid is
secure, anything else is not; the rest of the policy (ROV, the preference) is unchanged. So the
outcomes must equal the abstract policy's, which tests check, and warm starts check as they install.

Router keys are a CA's (`rpki ca build` writes them in its .keys folder; `--router-keys DIR`), or are
derived from the scenario's seed (a P-256 scalar from SHA-256 of the seed and the AS number): the same
seed gives the same keys, signatures and results. Adopters' public keys form the repository the
verifiers trust, as a relying party's output would; the run writes it as router-keys.json.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric import ec

from bgpsim.rpki.bgpsec.keys import SigningKey, ski_of
from bgpsim.rpki.bgpsec.path import BgpsecPath
from bgpsim.rpki.bgpsec.sign import P256_ORDER, forward
from bgpsim.rpki.bgpsec.verify import Verifier

from .policy import ORIGIN


@dataclass
class CryptoStats:
    """What the signing cost (the checks are counted by the Verifier)."""

    signatures: int = 0  # made
    sign_seconds: float = 0.0
    verify_seconds: float = 0.0
    updates_signed: int = 0
    updates_verified: int = 0


class Keyring:
    """One router key per AS: given (a CA's router keys, `rpki ca build`), else derived from the seed.
    `find` answers as `RouterKeys.find` does, for the registered ASes (the adopters)."""

    def __init__(self, seed: int, asns, registered, given: dict[int, SigningKey] | None = None):
        self.seed = seed
        self.asns = asns
        self.registered = registered  # index -> adopts
        self.given = given or {}
        self._keys: dict[int, SigningKey] = {}
        self._public: dict[int, tuple[bytes, object]] = {}  # ASN -> (SKI, public key) of registered ASes
        self._by_asn: dict[int, int] = {}
        self._skis: set[bytes] = set()

    def signing(self, i: int) -> SigningKey:
        k = self._keys.get(i)
        if k is None:
            asn = int(self.asns[i])
            k = self.given.get(asn)
            if k is None:
                h = hashlib.sha256(f"bgpsim BGPsec router key {self.seed} AS{asn}".encode()).digest()
                key = ec.derive_private_key(int.from_bytes(h, "big") % (P256_ORDER - 1) + 1, ec.SECP256R1())
                k = SigningKey(asn, ski_of(key.public_key()), key)
            pub = k.key.public_key()
            self._keys[i] = k
            self._by_asn[asn] = i
            if self.registered[i]:
                self._public[asn] = (k.ski, pub)
                self._skis.add(k.ski)
        return k

    def index(self, asn: int) -> int | None:
        return self._by_asn.get(asn)

    def find(self, ski: bytes, asn: int):
        got = self._public.get(asn)
        return [got[1]] if got is not None and got[0] == ski else []

    def knows(self, ski: bytes) -> bool:
        return ski in self._skis


class CryptoLoop:
    """The signing and checking the timed engine asks for, with its counts."""

    def __init__(self, topo, prefixes, adopters, attacker: int | None, seed: int, given=None):
        """`given`: private router keys by ASN (every adopter must have one); None: derived from `seed`."""
        import numpy as np

        self.topo = topo
        self.prefixes = prefixes
        self.adopter = np.zeros(topo.n, dtype=bool)
        self.adopter[list(adopters)] = True
        self.attacker = attacker
        if given is not None:
            lacking = [int(topo.asns[i]) for i in np.flatnonzero(self.adopter).tolist() if int(topo.asns[i]) not in given]
            if lacking:
                from bgpsim.base.errors import InputError

                more = f" and {len(lacking) - 3} more" if len(lacking) > 3 else ""
                raise InputError(f"--router-keys: no private router key for the adopters "
                                 f"{', '.join(f'AS{a}' for a in lacking[:3])}{more}")
        self.keys = Keyring(seed, topo.asns, self.adopter, given)
        for i in np.flatnonzero(self.adopter).tolist():  # the repository: every adopter's key
            self.keys.signing(i)
        self.verifier = Verifier(self.keys)
        self.stats = CryptoStats()
        # (p, r, s) -> what s sent adopter r (None: unsigned) and r's verdict on it
        self.received: dict[tuple[int, int, int], tuple[BgpsecPath | None, object]] = {}

    def router_keys(self) -> list:
        """The adopters' keys as a relying party lists them (RouterKey: AS, SKI, SubjectPublicKeyInfo)."""
        from cryptography.hazmat.primitives import serialization

        from bgpsim.rpki.vrps import RouterKey

        der, spki = serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        return [RouterKey(k.asn, k.ski, k.key.public_key().public_bytes(der, spki))
                for i, k in sorted(self.keys._keys.items()) if self.adopter[i]]

    # ---- sending -------------------------------------------------------------------------------
    def outgoing(self, engine, p: int, r: int, j: int) -> BgpsecPath | None:
        """The BGPsec_PATH r attaches to its UPDATE for prefix p to j (None: an unsigned UPDATE)."""
        adopter = self.adopter
        if not adopter[j] or not (adopter[r] or r == self.attacker):
            return None
        cur = engine.loc[p][r]
        pcount = 1 + engine.prepend.get((r, j), 0)  # prepending is pCount (RFC 8205 section 3.1)
        t = time.perf_counter()
        if cur[1] == ORIGIN:
            made = self._originate(r, j, p, cur[2], pcount)
        else:
            received = self.received.get((p, r, cur[2][0]), (None,))[0]
            if received is None:  # it came unsigned: it goes on unsigned (RFC 8205 section 4.1)
                return None
            made = forward(received, self.keys.signing(r), self.prefixes[p], int(self.topo.asns[j]), pcount)
            self.stats.signatures += 1
        self.stats.sign_seconds += time.perf_counter() - t
        self.stats.updates_signed += 1
        return made

    def _originate(self, r: int, j: int, p: int, claimed: tuple, pcount: int = 1) -> BgpsecPath:
        """r's own announcement to j; `claimed`: the ASes it says it heard the prefix from (a forgery
        unless empty), which it signs with its own key under their SKIs; `pcount`: r's segment's."""
        prefix = self.prefixes[p]
        mine = self.keys.signing(r)
        asns = self.topo.asns
        path = None
        chain = [int(asns[x]) for x in reversed(claimed)] + [mine.asn]  # origin first
        for k, asn in enumerate(chain):
            target = chain[k + 1] if k + 1 < len(chain) else int(asns[j])
            if asn == mine.asn:
                path = forward(path, mine, prefix, target, pcount)
            else:  # the owner's AS and SKI, the forger's private key
                other = self.keys.index(asn)
                ski = self.keys.signing(other).ski if other is not None else hashlib.sha1(str(asn).encode()).digest()
                path = forward(path, SigningKey(asn, ski, mine.key), prefix, target)
            self.stats.signatures += 1
        return path

    # ---- receiving -----------------------------------------------------------------------------
    def check(self, pol, p: int, s: int, r: int, rel: int, path: tuple, signed: BgpsecPath | None):
        """Adopter r receives `path` from s, signed or not: its verdict as the policy's `secure`."""
        verdict = None
        if signed is not None:
            t = time.perf_counter()
            verdict = self.verifier.verify(signed, int(self.topo.asns[r]), self.prefixes[p], int(self.topo.asns[s]))
            self.stats.verify_seconds += time.perf_counter() - t
            self.stats.updates_verified += 1
        self.received[(p, r, s)] = (signed, verdict)
        return pol.check_secure(self.prefixes[p], s, r, rel, path, verdict is not None and verdict.valid)

    # ---- what the run shows ------------------------------------------------------------------------
    def info(self):
        """result.json's `crypto` object."""
        from .result import CryptoInfo

        st, v = self.stats, self.verifier
        return CryptoInfo(st.signatures, v.verified, v.reused, st.updates_signed, st.updates_verified,
                          round(st.sign_seconds, 3), round(st.verify_seconds, 3))

    def signed_routes(self, engine, chosen: list[int | None]) -> list:
        """A SignedRoute per AS: how BGPsec saw the route it chose for prefix `chosen[i]` (None: none)."""
        from .result import SignedRoute

        asns = self.topo.asns
        out = []
        for i, p in enumerate(chosen):
            entry = None if p is None else engine.loc[p][i]
            adopts = bool(self.adopter[i])
            if entry is None or not entry[2]:
                out.append(SignedRoute(int(asns[i]), adopts, "origin" if entry is not None else "", "", "", None, ()))
                continue
            path = entry[2]
            signed, verdict = self.received.get((p, i, path[0]), (None, None)) if adopts else (None, None)
            if verdict is None:
                breaker = next((int(asns[x]) for x in reversed(path) if not self.adopter[x]), None)
                why = (f"AS{breaker} on the path does not speak BGPsec, so the signatures stop there"
                       if breaker is not None else "")
                out.append(SignedRoute(int(asns[i]), adopts, "unsigned" if adopts else "", "", why, None, ()))
                continue
            out.append(SignedRoute(int(asns[i]), adopts, verdict.state, verdict.reason, verdict.detail, verdict.hop,
                                   tuple(seg.asn for seg in signed.segments)))
        return out

