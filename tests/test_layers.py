"""The layers of the code, read from the source with `ast`: no import cycles; the base layer imports
nothing else of bgpsim; rpki imports only the base and itself; viz only the base, itself and the
run's result type; command modules are imported by the CLI entry alone; every module is small
enough to read at once. Imports inside functions count like any other. The compiled core
(bgpsim._core, core/*.c) is a module too: it imports nothing of bgpsim, and it sits beside the base,
where any layer may use it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# folders of the repository -> the import package each becomes (pyproject's package-dir)
FOLDERS = {"bgpsim": "bgpsim", "rpki": "bgpsim.rpki", "viz": "bgpsim.viz", "scenarios": "bgpsim.scenarios"}
MAX_LINES = 500


def modules() -> dict[str, Path]:
    found = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder)
            if any(part in FOLDERS for part in rel.parts[:-1]) and folder == "bgpsim":
                continue  # bgpsim/rpki etc.: the source tree's links to the folders above
            parts = [package, *rel.with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules `name` imports, anywhere in the file."""
    is_package = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = name.split(".") if is_package else name.split(".")[:-1]
                pkg = pkg[: len(pkg) - node.level + 1]
                base = ".".join(pkg + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    mods = modules()
    assert "bgpsim.rpki" in mods and "bgpsim.base" in mods and "bgpsim.viz" in mods
    known = set(mods) | {CORE}
    return {name: imports(name, path, known) for name, path in mods.items()}


CORE = "bgpsim._core"  # built from core/*.c by setup.py
LEAVES = ("bgpsim.base", CORE)  # what every layer may import


def under(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_no_import_cycles(graph):
    # Tarjan's strongly connected components
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert cycles == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def _allowed(graph, package: str, allowed: tuple[str, ...]) -> list[str]:
    return [f"{m} imports {t}" for m, ts in sorted(graph.items()) if under(m, package)
            for t in sorted(ts) if not any(under(t, a) for a in allowed) and t != "bgpsim"]


def test_the_base_imports_nothing_else_of_bgpsim(graph):
    assert _allowed(graph, "bgpsim.base", LEAVES) == []


def test_the_core_is_seen_and_imports_nothing_of_bgpsim(graph):
    users = sorted(m for m, ts in graph.items() if CORE in ts)
    assert "bgpsim.rpki.rov" in users and "bgpsim.validate.check" in users  # its imports are seen
    assert not [p for p in (ROOT / "core").glob("*.c") if "PyImport_" in p.read_text()]


def test_rpki_imports_only_the_base_and_itself(graph):
    assert _allowed(graph, "bgpsim.rpki", (*LEAVES, "bgpsim.rpki")) == []


def test_viz_imports_only_the_base_itself_and_the_result(graph):
    assert _allowed(graph, "bgpsim.viz", (*LEAVES, "bgpsim.viz", "bgpsim.sim.result")) == []


def test_only_the_cli_imports_command_modules(graph):
    bad = [f"{m} imports {t}" for m, ts in sorted(graph.items()) for t in sorted(ts)
           if under(t, "bgpsim.commands") and m != "bgpsim.cli" and not under(m, "bgpsim.commands")]
    assert bad == []
    assert not [f"{m} imports {t}" for m, ts in graph.items() if under(m, "bgpsim.commands")
                for t in ts if under(t, "bgpsim.commands") and t != "bgpsim.commands"]


def test_modules_are_small_enough_to_read_at_once():
    long = {name: n for name, path in modules().items()
            if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert long == {}, f"over {MAX_LINES} lines: {long}"
