"""RPKI's delays on the timed engine (bgpsim.sim.rpki_delays): a ROA published at t reaches an
adopter's routers only after its relying party has run and, without Serial Notify, its routers have
polled their cache; only then does the adopter drop the hijack. Worked by hand on a five-AS graph
(synthetic): AS2 deploys ROV and has two customer routes to 192.0.2.0/24, the attacker's (AS666, one
hop) and the victim's through AS3 (two hops); AS4, its customer, follows it."""

from __future__ import annotations

import math

import pytest

from bgpsim.base.errors import InputError
from bgpsim.sim.plan import resolve
from bgpsim.sim.rpki_delays import _next
from bgpsim.sim.run import simulate
from bgpsim.sim.scenario import load_scenario

GRAPH = "2|666|-1\n2|3|-1\n3|10|-1\n2|4|-1\n"


def scenario(tmp_path, change: str = "roa-publish", roa: bool = False, rpki: str | None = None, seed: int = 3) -> str:
    (tmp_path / "g.txt").write_text(GRAPH)
    text = (f'name = "delay"\ntopology = "g.txt"\nseed = {seed}\n[victim]\nasn = 10\nprefixes = ["192.0.2.0/24"]\n'
            '[attack]\nkind = "prefix"\nattacker = 666\nstart = 10.0\n[defence]\npolicy = "rov"\nadopters = [2]\n'
            + ('[[roa]]\nprefix = "192.0.2.0/24"\nasn = 10\n' if roa else "")
            + f'[[event]]\nat = 100.0\ntype = "{change}"\nprefix = "192.0.2.0/24"\nasn = 10\n'
            + (rpki if rpki is not None else
               '[rpki]\nfetch_interval = { distribution = "constant", value = 600 }\n'
               'refresh_interval = { distribution = "constant", value = 3600 }\nnotify = 0.0\n'))
    (tmp_path / "s.toml").write_text(text)
    return str(tmp_path / "s.toml")


def run(path: str, until: float | None = None):
    scn = load_scenario(path)
    if until is not None:
        scn.until = until
    return simulate(resolve(scn))


def by_hand(published: float, first_fetch: float, first_poll: float, notify: bool) -> float:
    """The relying party runs at first_fetch + 600 k, the routers poll at first_poll + 3600 m."""
    fetched = first_fetch if first_fetch >= published else first_fetch + 600 * math.ceil((published - first_fetch) / 600)
    if notify:
        return fetched
    return first_poll if first_poll >= fetched else first_poll + 3600 * math.ceil((fetched - first_poll) / 3600)


def test_the_next_run_of_a_periodic_schedule():
    assert _next(100.0, 250.0, 600.0) == 250.0  # the first run comes after the publication
    assert _next(100.0, 30.0, 600.0) == 630.0
    assert _next(630.0, 30.0, 600.0) == 630.0  # a run at the very time sees it
    assert _next(700.0, 30.0, 600.0) == 1230.0
    assert _next(5.0, 0.0, 0.0) == 5.0  # no interval: at once


@pytest.mark.parametrize("notify", [False, True])
def test_a_published_roa_stops_the_hijack_only_when_the_routers_have_it(tmp_path, notify):
    rpki = ('[rpki]\nfetch_interval = { distribution = "constant", value = 600 }\n'
            f'refresh_interval = {{ distribution = "constant", value = 3600 }}\nnotify = {1.0 if notify else 0.0}\n')
    path = scenario(tmp_path, rpki=rpki)
    res = run(path)
    s = res.rpki.schedules[2]
    assert (s.fetch_every, s.poll_every, s.notify) == (600.0, 3600.0, notify)
    when = by_hand(100.0, s.first_fetch, s.first_poll, notify)
    (change,) = res.rpki.changes
    assert change.routers == {2: pytest.approx(when, abs=1e-5)} and change.first == change.last == change.routers[2]
    rows = {r.asn: r for r in res.ases}
    for asn in (2, 4):  # the adopter and its customer: to the attacker from 10 s, back when AS2 re-evaluates
        assert rows[asn].outcome == "victim" and rows[asn].switched_at == pytest.approx(when, abs=1e-5)
        assert 10.0 < rows[asn].attacker_at < 11.0
    before = {r.asn: r.outcome for r in run(path, until=when - 0.01).ases}
    assert before[2] == before[4] == "attacker"  # a second earlier the ROA protected no one
    labels = [m.label for m in res.marks]
    assert labels == ["attack starts", "AS10's ROA for 192.0.2.0/24 is published",
                      "the first adopter's routers have the ROA", "every adopter's routers have the ROA"]


def test_a_revoked_roa_lets_back_the_route_rov_dropped(tmp_path):
    """RFC 9324: the adopter kept the attacker's route it dropped as invalid, and takes it when the
    ROA is gone from its routers, with no route refresh."""
    res = run(scenario(tmp_path, change="roa-revoke", roa=True))
    s = res.rpki.schedules[2]
    when = by_hand(100.0, s.first_fetch, s.first_poll, False)
    rows = {r.asn: r for r in res.ases}
    assert rows[2].outcome == "attacker" and rows[2].attacker_at == pytest.approx(when, abs=1e-5)
    assert rows[2].path == "2 666"


def test_the_same_seed_draws_the_same_schedules_another_seed_others(tmp_path):
    path = scenario(tmp_path)
    first, again = run(path).rpki, run(path).rpki
    assert first == again
    (tmp_path / "other").mkdir()
    assert run(scenario(tmp_path / "other", seed=9)).rpki.schedules != first.schedules


@pytest.mark.parametrize("change, rpki, message", [
    ("roa-revoke", None, "event[0]: no such ROA is published at t = 100 s"),
    ("roa-publish", "[rpki]\nnotify = 1.5\n", "rpki.notify: want the share of adopters"),
    ("roa-publish", "[rpki]\nfetch = 1\n", "rpki.fetch: unknown key"),
])
def test_bad_changes_and_tables_name_their_key(tmp_path, change, rpki, message):
    with pytest.raises(InputError) as e:
        load_scenario(scenario(tmp_path, change=change, rpki=rpki))
    assert message in str(e.value)


def test_an_rpki_table_without_a_change_is_refused(tmp_path):
    (tmp_path / "g.txt").write_text(GRAPH)
    (tmp_path / "s.toml").write_text('topology = "g.txt"\n[rpki]\nnotify = 1.0\n')
    with pytest.raises(InputError, match="add a roa-publish or roa-revoke"):
        load_scenario(tmp_path / "s.toml")


def test_changes_need_a_defence_that_checks_roas_and_the_timed_engine(tmp_path):
    from bgpsim.sim.converged import converged

    path = scenario(tmp_path)
    with pytest.raises(InputError, match="needs the timed engine"):
        converged(resolve(load_scenario(path)))
    text = (tmp_path / "s.toml").read_text().replace('policy = "rov"', 'policy = "otc"')
    (tmp_path / "s.toml").write_text(text)
    with pytest.raises(InputError, match="whose policy checks ROAs"):
        run(path)
