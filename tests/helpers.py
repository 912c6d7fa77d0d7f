"""Small graphs and runs for the tests."""

from __future__ import annotations

import fcntl
import os
import socket
import time
from contextlib import contextmanager
from pathlib import Path

from bgpsim.sim.engine.events import EventQueue
from bgpsim.sim.engine.timed import TimedEngine
from bgpsim.sim.engine.timing import Delay, Timing
from bgpsim.graph.topology import _build

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"


def shared(*parts: str) -> Path:
    """SHARED/parts, for the test or fixture that calls it, which is skipped (naming the path) when it is
    absent, as in a clone without ../shared beside it. Call it while the test runs, not at import: a
    module that reads shared data while being collected errors there instead of skipping."""
    import pytest

    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not found: {path} (../shared/data beside the repository)")
    return path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc, timeout: float = 10.0) -> None:
    """Until something listens on 127.0.0.1:`port`; fails, with its stderr, if the process `proc` ends."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(f"exited {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


@contextmanager
def built_once(tmp_path_factory, name: str):
    """(folder, whether to fill it): a folder for this whole run, which pytest-xdist's workers share
    (their base directories have one parent). The first worker to come fills it while the others wait
    on its lock, then they take what it built; a build that fails is tried again by the next."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        folder, built = shared / name, shared / f"{name}.built"
        folder.mkdir(exist_ok=True)
        yield folder, not built.exists()
        built.touch()


def graph(p2c=(), p2p=(), name="test"):
    """A topology from (provider, customer) and (peer, peer) ASN pairs."""
    return _build(list(p2c), list(p2p), f"test:{name}", name=name)


def path_asns(topo, engine, p, asn):
    """The AS path AS `asn` would advertise for prefix p (itself first), as ASNs, or None."""
    adv = engine.adv[p][topo.index[asn]]
    return None if adv is None else tuple(int(topo.asns[x]) for x in adv)


def timed(topo, mrai=0.0, seed=1, policies=None, prefixes=None, **timing):
    """A timed engine on its own queue; MRAI off unless asked."""
    import ipaddress

    prefixes = prefixes or [ipaddress.ip_network("10.0.0.0/16"), ipaddress.ip_network("10.0.0.0/24")]
    t = Timing(mrai=mrai, **timing)
    q = EventQueue()
    return TimedEngine(topo, prefixes, t, seed, q, policies), q


FAST = dict(link_delay=Delay("constant", 0.01), processing_delay=Delay("constant", 0.001))


def mutate(data, seeds: list[bytes]) -> bytes:
    """A hypothesis-drawn damaged copy of one of `seeds`: 1-3 bytes set, inserted or deleted, or a cut."""
    from hypothesis import strategies as st

    der = bytearray(data.draw(st.sampled_from(seeds)))
    for _ in range(data.draw(st.integers(1, 3))):
        pos = data.draw(st.integers(0, len(der) - 1))
        kind = data.draw(st.sampled_from(["set", "insert", "delete", "truncate"]))
        if kind == "set":
            der[pos] = data.draw(st.integers(0, 255))
        elif kind == "insert":
            der.insert(pos, data.draw(st.integers(0, 255)))
        elif kind == "delete" and len(der) > 1:
            del der[pos]
        else:
            der = der[: max(pos, 1)]
    return bytes(der)


def expect_verdict(path, judge, error_type, known: dict[str, str], root) -> None:
    """A conformance file's name is its verdict: good* must pass `judge(path)`; bad* must fail it
    with an `error_type` whose text names the file and says what was wanted. `known` maps files
    (relative to `root`) whose label we dispute, or that need more than this module, to why."""
    import pytest

    why = known.get(str(path.relative_to(root)))
    if why:
        pytest.xfail(why)
    if path.name.startswith("good"):
        judge(path)
        return
    with pytest.raises(error_type) as err:
        judge(path)
    assert path.name in str(err.value) and "want" in str(err.value)


def parents_by_definition(start: list[int], end: list[int]) -> list[int]:
    """Each prefix's nearest enclosing prefix (-1 for none), for prefixes sorted by (start, length)
    with inclusive ends, by the definition: the last one before it whose range holds its range."""
    return [max((j for j in range(i) if start[j] <= start[i] and end[i] <= end[j]), default=-1)
            for i in range(len(start))]


def cli_commands(parser=None, path: tuple[str, ...] = ()):
    """(command path such as "rpki ca build", its parser) for every command of `bgpsim` that runs."""
    import argparse

    from bgpsim.cli import build_parser

    parser = parser or build_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield " ".join(path), parser
    for sub in subs:
        for name, p in sub.choices.items():
            yield from cli_commands(p, (*path, name))


def undescribed(out: Path, shallow=("router-keys.json",)) -> list[str]:
    """What the README's "Every output, file by file" does not name, of the outputs under `out`: every
    file name (`chunk-NNNNNN.npz`, `scenarios/*.toml` for the numbered ones), every CSV column, every
    JSON key to the second level (of a list of objects, its first object's). `shallow`: files in
    another tool's format (rpki-client's JSON), checked at their top level only. Each as 'where: name'."""
    import csv
    import json
    import re

    names = set()
    for span in re.findall(r"`([^`\n]+)`", (ROOT / "README.md").read_text()):
        names.update(t for t in re.split(r"[^\w.\-*/]+", span) if t)
        names.update(t for t in re.split(r"[^\w\-]+", span) if t)
    missing = []

    def need(name: str, where: str) -> None:
        if not name.isdigit() and name not in names:
            missing.append(f"{where}: {name}")

    def keys(doc, where: str, depth: int) -> None:
        if isinstance(doc, list):
            doc = next((x for x in doc if isinstance(x, dict)), None)
        if isinstance(doc, dict):
            for k, v in doc.items():
                need(k, where)
                if depth:
                    keys(v, where, depth - 1)

    for path in sorted(out.rglob("*")):
        where = str(path.relative_to(out))
        if path.parent.name == "scenarios" and path.suffix == ".toml":
            need("scenarios/*.toml", where)
        elif path.parent.name != "scenarios" or path.is_dir():
            need(re.sub(r"\d{6}", "NNNNNN", path.name), where)
        if path.suffix == ".csv":
            with open(path, newline="") as f:
                for column in next(csv.reader(f), []):
                    need(column, where)
        elif path.suffix == ".json":
            keys(json.loads(path.read_text()), where, 0 if path.name in shallow else 1)
        elif path.suffix == ".jsonl":
            for line in path.read_text().splitlines():
                keys(json.loads(line), where, 1)
    return missing
