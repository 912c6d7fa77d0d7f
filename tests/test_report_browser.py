"""The report's "step through the run" section in a real browser: headless Chromium (Debian package
chromium) driven by Playwright (pip, the test extras), with every request but the page's own file
blocked and recorded. The slider and the play button change the ASes' colours and the numbers; a click
on an AS shows its routes; a large graph gets its tiers, its largest transit ASes and a searchable
table; the page asks for nothing from any server."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bgpsim.cli import main

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip: the test extras)")


def _chromium() -> str | None:
    for path in ("/usr/lib/chromium/chromium", shutil.which("chromium") or ""):
        if path and Path(path).is_file():
            return path
    return None


@pytest.fixture(scope="module")
def browser():
    path = _chromium()
    if path is None:
        pytest.skip("chromium is not installed (Debian package chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A page that may load only file:// URLs; `page.asked` lists what else it asked for, `page.errors`
    its script errors."""
    ctx = browser.new_context(viewport={"width": 1100, "height": 1400})
    asked: list[str] = []

    def gate(route):
        if route.request.url.startswith("file://"):
            return route.continue_()
        asked.append(route.request.url)
        return route.abort("blockedbyclient")

    ctx.route("**/*", gate)
    pg = ctx.new_page()
    pg.asked, pg.errors = asked, []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    yield pg
    ctx.close()


def _colours(pg) -> list[str]:
    return pg.eval_on_selector_all("#graph g.as", "gs => gs.map(g => g.getAttribute('data-outcome'))")


def test_a_small_graph_steps_and_plays(tmp_path, page):
    out = tmp_path / "sub"
    assert main(["run", "--out", str(out), "--quiet"]) == 0  # the bundled sub-prefix hijack
    page.goto((out / "report.html").as_uri())
    assert page.text_content("#clock").startswith("t = 0 s")
    start = _colours(page)
    assert start.count("attacker") == 1 and start.count("victim") == 29  # only the attacker is its own
    # the moment of the peak: the hijack has taken every AS
    n = int(page.get_attribute("#slider", "max"))
    moments = page.evaluate("JSON.parse(document.getElementById('steps-data').textContent)")
    assert moments["graph"]["ases"] and n > 20
    page.fill("#slider", str(n // 3))
    middle = _colours(page)
    assert middle.count("attacker") > 20 and "attacker 100.0 %" in page.text_content("#shares")
    assert page.eval_on_selector_all("#arrows line", "ls => ls.length") == 29  # a next hop for all but the origins
    # play: the moments go by until paused
    page.click("#play")
    page.wait_for_function(f"Number(document.getElementById('slider').value) >= {n // 3 + 3}")
    page.click("#play")
    paused = page.input_value("#slider")
    assert int(paused) > n // 3 + 2 and page.text_content("#play").endswith("play")
    page.wait_for_timeout(800)
    assert page.input_value("#slider") == paused
    # the last moment: the victim's more-specifics have won everything back
    page.fill("#slider", str(n))
    assert _colours(page).count("victim") == 29 and "victim 100.0 %" in page.text_content("#shares")
    assert "victim announces more-specifics" in page.text_content("#mark")
    # a click on an AS: its Loc-RIB and Adj-RIB-In at that moment
    page.click('#graph g.as[data-asn="64502"]')
    panel = page.text_content("#panel")
    assert "AS64502 Summit Transit" in panel and "Loc-RIB at t =" in panel and "Adj-RIB-In" in panel
    assert "198.51.100.0/26" in panel and "64510" in panel
    assert "What its neighbours sent it" in panel and "AS64497 sent 198.51.100.0/25 via" in panel
    assert page.asked == [] and page.errors == []


def test_adopters_wear_a_ring(tmp_path, page):
    from helpers import ROOT

    out = tmp_path / "rov"
    assert main(["run", str(ROOT / "scenarios" / "teaching-prefix-rov.toml"), "--out", str(out), "--quiet"]) == 0
    page.goto((out / "report.html").as_uri())
    rings = page.eval_on_selector_all("#graph circle.adopter", "cs => cs.length")
    assert rings == 5 and "Defence: rov, deployed by 5 ASes" in page.text_content(".steps + script, h2 + p.note")
    assert page.asked == [] and page.errors == []


def test_a_large_graph_has_tiers_top_ases_and_a_table(tmp_path, page):
    from bgpsim.graph.generate import internet_like

    topo = internet_like(300, seed=7)
    rows = [f"{a}|{b}|-1" for a, b in topo.asns[topo.p2c].tolist()] + [f"{a}|{b}|0" for a, b in topo.asns[topo.p2p].tolist()]
    (tmp_path / "g.txt").write_text("\n".join(rows) + "\n")
    stubs = [int(topo.asns[i]) for i in topo.stubs()]
    out = tmp_path / "big"
    assert main(["run", "--topology", str(tmp_path / "g.txt"), "--attack", "prefix", "--attacker", str(stubs[0]),
                 "--victim", str(stubs[1]), "--out", str(out), "--quiet"]) == 0
    page.goto((out / "report.html").as_uri())
    assert page.query_selector("#graph") is None
    tiers = page.text_content("#tiers")
    assert "top (no provider)" in tiers and "transit" in tiers and "stub" in tiers
    assert "its traffic diverted" in tiers and "% of all)" in tiers
    before = page.text_content("#shares")
    page.fill("#slider", page.get_attribute("#slider", "max"))
    assert page.text_content("#shares") != before
    assert len(page.query_selector_all("ul.top li")) == 15
    page.fill("#search", f"AS{stubs[0]}")  # ASNs that start so
    starting = sum(str(a).startswith(str(stubs[0])) for a in topo.asns.tolist())
    assert page.text_content("#found").startswith(f"{starting} ASes") and f"AS{stubs[0]}" in page.text_content("#table")
    assert page.asked == [] and page.errors == []
