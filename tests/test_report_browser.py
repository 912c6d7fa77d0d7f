"""The report's "step through the run" section in a real browser: headless Chromium (Debian package
chromium) driven by Playwright (pip, the test extras), with every request but the page's own file
blocked and recorded. The slider and the play button change the ASes' colours and the numbers; a click
on an AS shows its routes; the arrows stop short of the ASes' labels; a large graph gets its tiers (each
row on one line at 1280 px), its largest transit ASes and a searchable table (with an adopters' column
only when there is a defence); the page asks for nothing from any server."""

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


@pytest.fixture(scope="module")
def big_graph(tmp_path_factory):
    """A 300-AS Internet-like graph as a CAIDA file, and two of its stubs."""
    from bgpsim.graph.generate import internet_like

    topo = internet_like(300, seed=7)
    rows = [f"{a}|{b}|-1" for a, b in topo.asns[topo.p2c].tolist()] + [f"{a}|{b}|0" for a, b in topo.asns[topo.p2p].tolist()]
    path = tmp_path_factory.mktemp("big") / "g.txt"
    path.write_text("\n".join(rows) + "\n")
    return path, topo, [int(topo.asns[i]) for i in topo.stubs()]


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


def test_a_large_graph_has_tiers_top_ases_and_a_table(tmp_path, page, big_graph):
    graph, topo, stubs = big_graph
    out = tmp_path / "big"
    assert main(["run", "--topology", str(graph), "--attack", "prefix", "--attacker", str(stubs[0]),
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


# the boxes a line of text takes, per table cell: all on one line when each box's vertical span meets
# every other's (a bar beside its count: one line; the count under the bar: two)
_LINES_PER_CELL = """cells => cells.map(c => {
  const r = document.createRange(); r.selectNodeContents(c);
  const boxes = [...r.getClientRects()].filter(b => b.width > 0 && b.height > 0);
  const one = boxes.every(a => boxes.every(b => a.top < b.bottom && b.top < a.bottom));
  return [c.textContent.trim(), one];
})"""


def test_the_tier_table_keeps_each_cell_on_one_line_at_1280_px(tmp_path, browser, big_graph):
    """Bars and counts side by side in every cell, the whole table within the page's column; the table
    of every AS has a column for the adopters only when a defence is deployed."""
    graph, _, stubs = big_graph
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    try:
        for policy in (None, "rov"):
            out = tmp_path / (policy or "none")
            argv = ["run", "--topology", str(graph), "--attack", "prefix", "--attacker", str(stubs[0]),
                    "--victim", str(stubs[1]), "--out", str(out), "--quiet"]
            assert main(argv + (["--policy", policy, "--adoption", "0.5"] if policy else [])) == 0
            pg.goto((out / "report.html").as_uri())
            for moment in ("0", pg.get_attribute("#slider", "max")):
                pg.fill("#slider", moment)
                cells = pg.eval_on_selector_all("table.tiers th, table.tiers td", _LINES_PER_CELL)
                assert len(cells) == 4 * 6 and all(one for _, one in cells), cells
                table, column = pg.evaluate("[document.querySelector('table.tiers').getBoundingClientRect().right, "
                                            "document.querySelector('#tiers').getBoundingClientRect().right]")
                assert table <= column
            heads = pg.eval_on_selector_all("#table th", "hs => hs.map(h => h.textContent)")
            yes = pg.eval_on_selector_all("#table td", "ds => ds.filter(d => d.textContent === 'yes').length")
            if policy:
                assert heads[-1] == "adopts the defence" and yes > 0
            else:
                assert "adopts the defence" not in heads and yes == 0
    finally:
        ctx.close()


# every arrow of the small graph's view: where its head is, and whether that touches any AS's circle or label
_ARROWHEADS_ON_ASES = """() => {
  const svg = document.getElementById('graph');
  const ases = [...svg.querySelectorAll('g.as')].map(g => {
    const c = g.querySelector('circle'), t = g.querySelector('text').getBBox();
    return {asn: g.dataset.asn, x: +c.getAttribute('cx'), y: +c.getAttribute('cy'), r: +c.getAttribute('r'), t: t};
  });
  const bad = [];
  for (const l of svg.querySelectorAll('#arrows line')) {
    const x1 = +l.getAttribute('x1'), y1 = +l.getAttribute('y1'), x2 = +l.getAttribute('x2'), y2 = +l.getAttribute('y2');
    const n = Math.hypot(x2 - x1, y2 - y1), ux = (x2 - x1) / n, uy = (y2 - y1) / n;
    const head = 7 * parseFloat(getComputedStyle(l).strokeWidth);  // the marker: 7 stroke widths long and wide
    for (let k = 0; k <= 10; k++) for (const side of [-0.5, 0, 0.5]) {
      const d = head * k / 10, w = head * side * k / 10;
      const px = x2 - ux * d - uy * w, py = y2 - uy * d + ux * w;
      for (const a of ases) {
        if (Math.hypot(px - a.x, py - a.y) < a.r || (px > a.t.x && px < a.t.x + a.t.width && py > a.t.y
            && py < a.t.y + a.t.height)) bad.push([l.dataset.from, l.dataset.to, a.asn]);
      }
    }
  }
  return [svg.querySelectorAll('#arrows line').length, bad];
}"""


def test_arrowheads_stop_short_of_the_ases_and_their_labels(tmp_path, page):
    """On the teaching graph, at every tenth moment: no arrowhead touches a circle or a label."""
    out = tmp_path / "sub"
    assert main(["run", "--out", str(out), "--quiet"]) == 0
    page.goto((out / "report.html").as_uri())
    n = int(page.get_attribute("#slider", "max"))
    drawn = 0
    for moment in range(0, n + 1, 10):
        page.fill("#slider", str(moment))
        count, bad = page.evaluate(_ARROWHEADS_ON_ASES)
        assert bad == [], (moment, bad)
        drawn += count
    assert drawn > 29 * (n // 10)  # arrows were there to check: nearly every AS has a next hop
    assert page.errors == []
