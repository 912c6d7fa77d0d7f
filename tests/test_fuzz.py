"""Parsers of outside input are total: any input gives a value or an InputError, nothing else."""

import bz2

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgpsim.base.errors import InputError
from bgpsim.sim.scenario import load_scenario
from bgpsim.graph.topology import read_caida, read_toml

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

caida_lines = st.lists(st.one_of(
    st.tuples(st.integers(-2, 70), st.integers(-2, 70), st.sampled_from(["-1", "0", "1", "x", ""]),
              st.sampled_from(["", "|bgp", "|mlp|", "|"])).map(lambda t: f"{t[0]}|{t[1]}|{t[2]}{t[3]}"),
    st.sampled_from(["# input clique: 1 2 3", "# IXP ASes: 4", "# input clique: x", "#", "", "  ", "1|2"]),
    st.text(max_size=20)), max_size=30)


@FUZZ
@given(lines=caida_lines, compress=st.booleans())
def test_caida_reader_is_total(tmp_path_factory, lines, compress):
    data = "\n".join(lines).encode("utf-8", errors="surrogatepass") if lines else b""
    path = tmp_path_factory.mktemp("c") / "rel.txt"
    path.write_bytes(bz2.compress(data) if compress else data)
    try:
        topo = read_caida(path)
    except InputError as e:
        assert str(path) in str(e)
    else:
        assert topo.n >= 2 and (topo.ranks >= 0).all()


@FUZZ
@given(data=st.binary(max_size=200))
def test_caida_reader_survives_bytes(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("b") / "rel.txt"
    path.write_bytes(data)
    try:
        read_caida(path)
    except InputError:
        pass


toml_values = st.one_of(st.integers(-5, 2**33), st.floats(allow_nan=True), st.text(max_size=12), st.booleans(),
                        st.lists(st.integers(-1, 70000), max_size=3), st.just("198.51.100.0/24"), st.just([64496, 64497]))


def toml_literal(v):
    import json
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if v != v else ("inf" if v == float("inf") else ("-inf" if v == float("-inf") else repr(v)))
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_literal(x) for x in v) + "]"
    return str(v)


@FUZZ
@given(entries=st.lists(st.tuples(st.sampled_from(["", "timing", "victim", "attack", "mitigation", "defence", "[roa]", "[event]", "[as]"]),
                                  st.sampled_from(["name", "topology", "seed", "mrai", "kind", "attacker", "asn", "prefixes",
                                                   "start", "stop", "prefix", "policy", "adopters", "adoption", "at", "type",
                                                   "link", "max_length", "weighting", "providers", "peers", "bogus"]),
                                  toml_values), max_size=8))
def test_scenario_and_toml_topology_loaders_are_total(tmp_path_factory, entries):
    lines = ['name = "fuzz"', 'topology = "t.toml"']
    current = None
    for table, key, value in entries:
        if table != current:
            lines.append(f"[{table}]" if table else "")
            current = table
        lines.append(f"{key} = {toml_literal(value)}")
    text = "\n".join(lines) + "\n"
    d = tmp_path_factory.mktemp("s")
    for loader in (load_scenario, read_toml):
        path = d / "s.toml"
        path.write_text(text)
        try:
            loader(path)
        except InputError as e:
            assert str(path) in str(e)
