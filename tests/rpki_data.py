"""Where the shared RPKI test data lives, for the RPKI tests."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
OBJECTS = DATA / "rpki" / "objects"
RPKI_RS = OBJECTS / "rpki-rs"
CONF = OBJECTS / "rpki-commons" / "conformance"
# The conformance certificates are valid 2011..2046; a fixed evaluation time keeps the run stable.
CONFORMANCE_TIME = datetime(2026, 1, 1, tzinfo=timezone.utc)


def need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared RPKI data set is not here)")
    return path
