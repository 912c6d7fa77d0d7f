"""`bgpdump -m` text read back into routes (bgpsim.mrt.text): round trips through bgpsim.mrt.bgpdump on
bgpdump's own reference output (../shared/data/mrt/ripe_bgpdump_testdata), strict errors naming the
file and line, and mutated lines that raise nothing but InputError."""

from __future__ import annotations

import gzip
import io
from itertools import islice
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgpsim.cli import main
from bgpsim.base.errors import InputError
from bgpsim.mrt import bgpdump
from bgpsim.mrt.bgpdump import line
from bgpsim.mrt.record import ANNOUNCE, STATE, WITHDRAW
from bgpsim.mrt.text import MAX_LINE, read_text_routes

EXPECTED = Path(__file__).resolve().parents[2] / "shared" / "data" / "mrt" / "ripe_bgpdump_testdata" / \
    "expected_bgpdump_output"
needs_data = pytest.mark.skipif(not EXPECTED.is_dir(), reason=f"no bgpdump reference output at {EXPECTED}")

# whole files; the big ones (115,521 to 641,957 lines, some seconds each) are read in part
WHOLE = ["bview.64k_stream_overflow.gz.bgp.gz", "bview.ipv4_unicast_add_path.gz.bgp.gz",
         "bview.ipv6_unicast_add_path.gz.bgp.gz", "updates.20020722.2238.gz.bgp.gz",
         "updates.20071015.1505.gz.bgp.gz", "updates.20100722.2015.gz.bgp.gz",
         "updates.long_withdrawal.gz.bgp.gz", "updates.nlri_mask_trailing_bits.gz.bgp.gz"]
PREFIX = ["bview.20020722.2337.gz.bgp.gz", "bview.20100701.0759.gz.bgp.gz", "updates.20070211.0141.gz.bgp.gz",
          "updates.20160811.1600.gz.bgp.gz", "updates.et-header.2015.gz.bgp.gz"]
PREFIX_LINES = 40_000


def _text(routes) -> str:
    out = io.StringIO()
    bgpdump.write(routes, out)
    return out.getvalue()


@needs_data
@pytest.mark.parametrize("name", WHOLE)
def test_round_trip_whole(name):
    path = EXPECTED / name
    assert _text(read_text_routes(str(path))) == gzip.open(path, "rt").read()


@needs_data
@pytest.mark.parametrize("name", PREFIX)
def test_round_trip_prefix(name):
    path = EXPECTED / name
    with gzip.open(path, "rt") as f:
        want = "".join(islice(f, PREFIX_LINES))
    assert _text(islice(read_text_routes(str(path)), PREFIX_LINES)) == want


def _write(tmp_path, text: str, name="t.txt") -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


GOOD = [
    "BGP4MP|1192460700|A|213.200.87.254|3257|203.157.152.0/24|3257 {4651,7470} (65001 65002) [1,2] 9835|EGP|"
    "213.200.87.254|100|10|3257:3150 no-export|AG|9835 164.115.26.130|",
    "BGP4MP_ET|1445565678.509481|STATE|206.220.231.55|3856|1|2",
    "BGP4MP_AP|1|W|2001:db8::2|65531|2001:db8::/64|7",
    "TABLE_DUMP2_AP|1452169448|B|2001:db8:16::2|65017|2001:db8:28::/48|59|65017|IGP|255.255.255.255|100|0||NAG||",
    "BGP4MP|5|A|192.0.2.1|4200000000|2001:db8::/32||INCOMPLETE||NAG||",
]


def test_fields_decoded(tmp_path):
    routes = list(read_text_routes(_write(tmp_path, "\n".join(GOOD) + "\n")))
    assert [line(r) for r in routes] == GOOD
    a = routes[0]
    assert a.kind == ANNOUNCE and a.as_path == ((2, (3257,)), (1, (4651, 7470)), (3, (65001, 65002)), (4, (1, 2)),
                                                 (2, (9835,)))
    assert (a.origin, a.local_pref, a.med, a.atomic_aggregate) == ("EGP", 100, 10, True)
    assert a.communities == ((3257 << 16) | 3150, 0xFFFFFF01) and a.aggregator == (9835, "164.115.26.130")
    assert routes[1].kind == STATE and (routes[1].usec, routes[1].new_state) == (509481, 2)
    assert routes[2].kind == WITHDRAW and routes[2].path_id == 7
    assert routes[3].path_id == 59 and routes[3].next_hop is None


@pytest.mark.parametrize("bad,what", [
    ("BGP4MP|12|A|1.2.3.4|5|1.0.0.0/8|1 2|IGP|1.2.3.4|0|0||NAG|", "want 15 fields"),
    ("BGP4MP|12|A|1.2.3.400|5|1.0.0.0/8|1 2|IGP|1.2.3.4|0|0||NAG||", "peer address"),
    ("BGP4MP|12|A|1.2.3.4|5|1.0.0.0/33|1 2|IGP|1.2.3.4|0|0||NAG||", "length <= 32"),
    ("BGP4MP|12|A|1.2.3.4|4294967296|1.0.0.0/8|1|IGP|1.2.3.4|0|0||NAG||", "peer AS"),
    ("BGP4MP|12|A|1.2.3.4|5|1.0.0.0/8|1  2|IGP|1.2.3.4|0|0||NAG||", "AS path"),
    ("BGP4MP|12|A|1.2.3.4|5|1.0.0.0/8|1 {2|IGP|1.2.3.4|0|0||NAG||", "AS path"),
    ("BGP4MP|12|A|1.2.3.4|5|1.0.0.0/8|1|IGP|1.2.3.4|0|0|65536:1|NAG||", "community"),
    ("BGP4MP|12|A|1.2.3.4|5|1.0.0.0/8|1|XGP|1.2.3.4|0|0||NAG||", "origin"),
    ("BGP4MP|12|B|1.2.3.4|5|1.0.0.0/8|1|IGP|1.2.3.4|0|0||NAG||", "kind"),
    ("BGP4MP_ET|12|W|1.2.3.4|5|1.0.0.0/8", "microseconds"),
    ("BGP5|12|W|1.2.3.4|5|1.0.0.0/8", "record name"),
    ("BGP4MP|12|W|1.2.3.4|5|1.0.0.0/8|", "withdrawal"),
    ("BGP4MP|12|A|1.2.3.4|5|1.0.0.0/8|1|IGP|1.2.3.4|0|0||NAG|1 2.3.4.5 6|", "aggregator"),
    ("BGP4MP|1\u00e9|W|1.2.3.4|5|1.0.0.0/8", "ASCII"),
])
def test_malformed_line_is_an_error_with_file_and_line(tmp_path, bad, what):
    f = _write(tmp_path, GOOD[1] + "\n" + bad + "\n" + GOOD[2] + "\n")
    with pytest.raises(InputError, match=what) as e:
        list(read_text_routes(f))
    assert str(e.value).startswith(f"{f}:line 2: ")
    warnings: list[str] = []
    assert [line(r) for r in read_text_routes(f, warnings.append, strict=False)] == [GOOD[1], GOOD[2]]
    assert len(warnings) == 1 and warnings[0].startswith(f"{f}: line 2: ")


def test_overlong_line_is_bounded(tmp_path):
    f = _write(tmp_path, GOOD[1] + "\n" + "BGP4MP|" + "9" * (MAX_LINE + 10) + "\n" + GOOD[2] + "\n")
    with pytest.raises(InputError, match="line 2: .*want at most"):
        list(read_text_routes(f))
    assert len(list(read_text_routes(f, lambda m: None, strict=False))) == 2


def test_cli_reads_text(tmp_path, capsys):
    f = tmp_path / "t.bgp.gz"
    with gzip.open(f, "wt") as g:
        g.write("\n".join(GOOD) + "\n")
    assert main(["dump", str(f)]) == 0
    assert capsys.readouterr().out == "\n".join(GOOD) + "\n"
    assert main(["dump", _write(tmp_path, GOOD[0] + "\nBGP4MP|x\n")]) == 2
    assert "line 2" in capsys.readouterr().err


# The suite runs a few hundred mutated lines; the 100,000-input run is separate (set max_examples).
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(data=st.data())
def test_mutated_lines_only_input_errors(tmp_path, data):
    text = data.draw(st.sampled_from(GOOD))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(text)))
        op = data.draw(st.sampled_from(("replace", "delete", "insert")))
        piece = data.draw(st.text(alphabet="0123456789|:./ {},()[]-ABEGINPSTW_\n\x00\u00ff", max_size=6))
        if op == "replace":
            text = text[:i] + piece + text[i + len(piece):]
        elif op == "delete":
            text = text[:i] + text[i + data.draw(st.integers(1, 8)):]
        else:
            text = text[:i] + piece + text[i:]
    f = tmp_path / "m.txt"
    f.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        for r in read_text_routes(str(f)):
            line(r)
    except InputError:
        pass
    for r in read_text_routes(str(f), lambda m: None, strict=False):  # lenient: never raises
        line(r)
