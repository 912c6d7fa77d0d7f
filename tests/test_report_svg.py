"""report.html's figures (bgpsim.validate.output): three inline SVGs written without a plotting library,
well-formed, labelled, accessible, with every outside text escaped, the same bytes for the same doc."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

from bgpsim.validate import output
from bgpsim.rpki.rov import STATES

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE_FILE = '<script>alert("file")</script>&dump.mrt'
HOSTILE_IP = '2001:db8::1"><script>alert(1)</script>'


def make_doc(aspa: bool = True, invalid: bool = True) -> dict:
    peers = [{"peer_ip": HOSTILE_IP if i == 1 else f"192.0.2.{i}", "peer_as": 64500 + i, "routes": 100,
              "valid": 70, "invalid-asn": 10 if invalid else 0, "invalid-length": 5 if invalid else 0,
              "not-found": 15 if invalid else 30} for i in range(25)]
    rpki = {s: sum(p[s] for p in peers) for s in STATES}
    origins = [{"origin_as": None if i == 2 else 65000 + i, "invalid": 900 - 50 * i, "routes": 1000}
               for i in range(18)] if invalid else []
    return {"files": [HOSTILE_FILE], "vrps": 1234, "aspas": 3 if aspa else None, "routes": 2500, "withdrawals": 7,
            "state_changes": 1, "rpki": rpki,
            "aspa": {"valid": 2000, "invalid": 100, "unknown": 400} if aspa else None,
            "findings": {"moas": 2}, "by_peer": peers, "top_invalid_origins": origins}


def svgs(page: str) -> list[ET.Element]:
    found = re.findall(r"<svg .*?</svg>", page, re.S)
    return [ET.fromstring(s) for s in found]  # well-formed XML, or this raises


def texts(svg: ET.Element) -> list[str]:
    return [t.text for t in svg.iter(SVG + "text")]


def test_three_labelled_svgs():
    page = output.report_html(make_doc())
    assert "data:image/png" not in page
    status, origins, peers = svgs(page)
    for svg in (status, origins, peers):
        assert svg.get("role") == "img" and svg.get("aria-label") and svg.get("width") == "100%"
        assert re.fullmatch(r"0 0 750 [\d.]+", svg.get("viewBox"))
        assert svg.find(SVG + "title").text == svg.get("aria-label")
    # status shares: both rows, the ticks, the axis label, the legend, labels on wide segments only
    t = texts(status)
    assert {"RPKI (RFC 6811)", "ASPA", "share of announced routes", *STATES, "ASPA invalid", "ASPA unknown"} <= set(t)
    assert [x for x in t if x.endswith("%") and not x[:-1].isdigit()] == ["70.0%", "10.0%", "15.0%", "80.0%", "16.0%"]
    assert {f"{20 * i}%" for i in range(6)} <= set(t)
    # top invalid origins: 15 bars, AS_SET, round ticks, counts formatted like the tables
    t = texts(origins)
    assert [x for x in t if x.startswith("AS")] == [f"AS{65000 + i}" if i != 2 else "AS_SET" for i in range(15)]
    assert "RPKI-invalid routes" in t and {"0", "200", "400", "600", "800", "1,000"} <= set(t)
    assert len([r for r in origins.iter(SVG + "rect") if r.find(SVG + "title") is not None]) == 15
    # per peer: TOP of them, with their address
    t = texts(peers)
    assert [x for x in t if x.startswith("AS")] == [f"AS{64500 + i} {HOSTILE_IP if i == 1 else f'192.0.2.{i}'}"
                                                    for i in range(output.TOP)]
    assert "share of the peer's routes" in t and set(STATES) <= set(t)


def test_outside_text_escaped():
    page = output.report_html(make_doc())
    assert "<script" not in page and "alert(" in page
    assert "&lt;script&gt;alert(&quot;file&quot;)&lt;/script&gt;&amp;dump.mrt" in page  # the page's text
    assert '2001:db8::1&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;' in page  # the figures' text
    peers = svgs(page)[2]
    assert any(HOSTILE_IP in (title.text or "") for title in peers.iter(SVG + "title"))  # parsed back intact


def test_same_bytes_twice():
    for aspa in (True, False):
        doc = make_doc(aspa=aspa)
        first = output.report_html(doc)
        assert output.report_html(make_doc(aspa=aspa)) == first
        assert ("ASPA invalid" in first) == aspa and first.count("<svg ") == 3


def test_no_invalid_routes_and_no_routes():
    page = output.report_html(make_doc(invalid=False))
    assert len(svgs(page)) == 3 and "no RPKI-invalid routes" in page
    empty = {"files": ["x"], "vrps": 0, "aspas": None, "routes": 0, "withdrawals": 0, "state_changes": 0,
             "rpki": {s: 0 for s in STATES}, "aspa": None, "findings": {}, "by_peer": [], "top_invalid_origins": []}
    page = output.report_html(empty)
    assert len(svgs(page)) == 3 and "no RPKI-invalid routes" in page and "no announced routes" in page


def test_no_matplotlib():
    """The page needs no plotting library."""
    code = ("import sys; from bgpsim.validate import output; from test_report_svg import make_doc; "
            "output.report_html(make_doc()); "
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported'")
    here = os.path.dirname(os.path.abspath(__file__))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.dirname(here), here])}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=here)
