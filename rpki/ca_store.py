"""The CA's store: DIR/.keys beside the published tree, never in it (directory 0700, files 0600).

It holds the private keys (PEM), so that a second build signs with the same CA keys, and
state.json: the next serial number of each issuer, the CRL and manifest numbers (one higher each
build: RFC 5280 section 5.2.3, RFC 9286 section 4.2.1), the serials revoked, and what each CA
issued (fingerprint of its part of the spec, serial, file name, SHA-256), so that an object whose
part did not change is kept.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

from bgpsim.base.outdir import write_atomic

from . import build

KEYS_DIR = ".keys"


class Store:
    """DIR/.keys: private keys (PEM, 0600) and state.json (serials, numbers, what was issued)."""

    def __init__(self, out: Path):
        self.dir = out / KEYS_DIR
        self.dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.dir, 0o700)
        self.state_path = self.dir / "state.json"
        if self.state_path.exists():
            self.state = json.loads(self.state_path.read_text())
        else:
            self.state = {"next_serial": {}, "crl_number": {}, "manifest_number": {}, "revoked": {}, "objects": {}}

    def key(self, label: str, make):
        """The private key stored as `label`, made by `make()` and stored the first time."""
        path = self.dir / f"{label}.pem"
        if path.exists():
            return build.load_key_pem(path.read_bytes())
        key = make()
        write_atomic(path, build.key_pem(key), mode=0o600)
        return key

    def serial(self, ca: str) -> int:
        """The next serial number of issuer `ca` (1, 2, ...: unique per issuer, RFC 5280 section 4.1.2.2)."""
        n = self.state["next_serial"].get(ca, 1)
        self.state["next_serial"][ca] = n + 1
        return n

    def bump(self, table: str, ca: str) -> int:
        """One more than the last of `ca`'s numbers in `table` (crl_number, manifest_number)."""
        n = self.state[table].get(ca, 0) + 1
        self.state[table][ca] = n
        return n

    def revoke(self, ca: str, serial: int, when: datetime) -> None:
        """Put `serial` on `ca`'s CRL from now on."""
        self.state["revoked"].setdefault(ca, {})[str(serial)] = build.utc(when).isoformat()

    def save(self) -> None:
        write_atomic(self.state_path, json.dumps(self.state, indent=1, sort_keys=True), mode=0o600)
