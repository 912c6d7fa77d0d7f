"""Each defence on a small graph whose answer is worked out by hand (victim 777, attacker 666)."""

from __future__ import annotations

import ipaddress

import pytest
from helpers import SHARED, graph

from bgpsim.sim import trial
from bgpsim.sim.defences import DEFENCES, defence
from bgpsim.sim.engine.steady import Seed, propagate


def outcomes(topo, kind, policy=None, adopters=(), attacker=666, victim=777):
    res = trial.run(topo, kind, topo.index[attacker], topo.index[victim], policy, [topo.index[a] for a in adopters])
    return {int(topo.asns[i]): trial.OUTCOMES[o] for i, o in enumerate(res.outcome)}


def test_every_defence_cites_its_source():
    for name, cls in DEFENCES.items():
        doc = (cls.__doc__ or "") + (__import__(cls.__module__, fromlist=["x"]).__doc__ or "")
        assert any(s in doc for s in ("RFC", "draft-", "SIGCOMM", "NANOG", "NDSS")), name


# 1 buys from nobody; its customers 2 and 3; 2 -> 4 -> 777 (the victim, two hops down), 3 -> 666.
# 5 is a customer of 1. 1 hears [2 4 777] (3 ASes) and [3 666] (2): the shorter, the attacker's, wins.
ROV_GRAPH = dict(p2c=[(1, 2), (1, 3), (2, 4), (4, 777), (3, 666), (1, 5)])


def test_rov_drops_the_invalid_origin():
    t = graph(**ROV_GRAPH)
    assert outcomes(t, "prefix")[1] == "attacker"
    o = outcomes(t, "prefix", "rov", [1])
    assert o[1] == "victim" and o[5] == "victim"  # 5 follows 1
    assert o[3] == "attacker"  # 3 does not validate: its customer's route stands


def test_rov_deprefer_keeps_invalid_routes_when_nothing_valid_is_as_good():
    t = graph(**ROV_GRAPH)
    o = outcomes(t, "prefix", "rov-deprefer", [1, 3])
    assert o[1] == "victim"  # two customer routes: the valid one wins although longer
    assert o[3] == "attacker"  # its invalid customer route still beats the valid one from provider 1
    assert outcomes(t, "prefix", "rov", [1, 3])[3] == "victim"  # dropping it sends 3 up to 1


def test_peer_rov_filters_only_routes_from_peers():
    # 10 hears the attacker from its peer 3 and the victim from its provider 20: the peer route wins.
    t = graph(p2c=[(3, 666), (20, 777), (20, 10)], p2p=[(10, 3)])
    assert outcomes(t, "prefix")[10] == "attacker"
    assert outcomes(t, "prefix", "peer-rov", [10])[10] == "victim"
    assert outcomes(t, "prefix", "peer-rov", [3])[3] == "attacker"  # from a customer: not filtered


# The attacker's provider 3 peers with the victim's provider 1; 5 buys from 3.
FORGED_GRAPH = dict(p2c=[(1, 777), (3, 666), (3, 5)], p2p=[(1, 3)])


def test_aspa_upstream_rejects_a_forged_origin_and_downstream_cannot_always():
    t = graph(**FORGED_GRAPH)
    assert outcomes(t, "forged-origin")[3] == "attacker"  # customer route [666 777] beats peer [1 777]
    # 777 publishes its providers {1}; 3 checks the customer route upstream: hop 777 -> 666 is "Not
    # Provider+", so max_up_ramp = 1 < N = 2: Invalid.
    assert outcomes(t, "forged-origin", "aspa", [777, 3])[3] == "victim"
    # 5 alone checks [3 666 777] downstream: max_up_ramp 1 + max_down_ramp 3 (3 and 666 have no
    # records) >= 3: not Invalid, so it follows 3 to the attacker.
    assert outcomes(t, "forged-origin", "aspa", [777, 5])[5] == "attacker"


def test_path_end_rejects_a_fake_last_hop_but_not_a_real_one():
    t = graph(**FORGED_GRAPH)
    assert outcomes(t, "forged-origin", "path-end", [777, 3])[3] == "victim"  # 666 is no neighbour of 777
    assert outcomes(t, "forged-origin", "path-end", [3])[3] == "attacker"  # 777 publishes no record
    # The shortest path path-end still accepts runs through a real neighbour: [666 1 777].
    o = outcomes(t, "shortest-path", "path-end", [777, 3])
    assert o[3] == "attacker"


def test_bgpsec_prefers_a_signed_path_after_length():
    # 10 buys nothing and sells to 20 and 30, which both sell to 777: two paths of equal length.
    t = graph(p2c=[(10, 20), (10, 30), (20, 777), (30, 777)])
    p = ipaddress.ip_network("1.2.0.0/16")
    i = t.index
    plain = propagate(t, p, [Seed(i[777])])
    assert plain.path(i[10]) == (i[20], i[777])  # lowest next-hop ASN
    pol = defence("bgpsec", t, [i[10], i[30], i[777]])
    assert propagate(t, p, [Seed(i[777])], pol).path(i[10]) == (i[30], i[777])  # signed end to end
    pol = defence("bgpsec", t, [i[10], i[777]])  # 30 does not sign: no secure path, back to the ASN
    assert propagate(t, p, [Seed(i[777])], pol).path(i[10]) == (i[20], i[777])
    # Length comes first: a direct insecure route beats a secure longer one.
    t2 = graph(p2c=[(10, 20), (10, 30), (20, 777), (30, 777), (10, 777)])
    j = t2.index
    pol = defence("bgpsec", t2, [j[10], j[30], j[777]])
    assert propagate(t2, p, [Seed(j[777])], pol).path(j[10]) == (j[777],)


def test_aspa_bgpsec_and_path_end_alone_check_the_path_and_not_the_origin():
    """Without ROV (`-alone`) the three still do their own check, and let an exact-prefix hijack
    through: a plain origin is a path of one AS, which ASPA and path-end pass and BGPsec only ranks.
    With it (BGPy's `aspa`, `bgpsec`, `path-end`, which tables call rov+...) the hijack is dropped."""
    from bgpsim.sim.defences import ASPA, label

    t = graph(**FORGED_GRAPH)
    assert outcomes(t, "forged-origin", "aspa-alone", [777, 3])[3] == "victim"
    assert outcomes(t, "forged-origin", "path-end-alone", [777, 3])[3] == "victim"
    t = graph(**ROV_GRAPH)  # 1 hears the attacker's shorter invalid route from its customer 3
    for mechanism in ("aspa", "bgpsec", "path-end"):
        assert outcomes(t, "prefix", f"{mechanism}-alone", [1, 777])[1] == "attacker", mechanism
        assert outcomes(t, "prefix", mechanism, [1, 777])[1] == "victim", mechanism
        assert label(mechanism) == f"rov+{mechanism}" and label(f"{mechanism}-alone") == f"{mechanism}-alone"
    t = graph(p2c=[(10, 20), (10, 30), (20, 777), (30, 777)])  # two paths of equal length: the signed one
    i = t.index
    ribs = propagate(t, ipaddress.ip_network("1.2.0.0/16"), [Seed(i[777])], defence("bgpsec-alone", t, [i[10], i[30], i[777]]))
    assert ribs.path(i[10]) == (i[30], i[777])
    # rov+aspa is aspa itself (the class BGPy's tests check), and reads so in a table
    assert type(defence("rov+aspa", t, [])) is ASPA and label("rov+aspa") == "rov+aspa"
    assert label("bgpsec+maxlen") == "rov+bgpsec+maxlen" and label("otc") == "otc"


# 3 sells to 1 and 2; 1 sells to the victim and to 5, which also buys from 2: 5 leaks 1's route to 2.
LEAK_GRAPH = dict(p2c=[(3, 1), (3, 2), (1, 777), (1, 5), (2, 5)])


def test_otc_stops_a_leak_when_the_provider_marks_and_the_next_one_checks():
    t = graph(**LEAK_GRAPH)
    assert outcomes(t, "leak", attacker=5)[2] == "attacker"  # the leaked customer route beats [3 1 777]
    assert outcomes(t, "leak", "otc", [1, 2], attacker=5)[2] == "victim"  # 1 marks OTC=1 to its customer
    assert outcomes(t, "leak", "otc", [2], attacker=5)[2] == "attacker"  # nobody marked it: 2 cannot tell


def test_enforce_first_as_rejects_a_path_that_does_not_start_with_the_sender():
    t = graph(**FORGED_GRAPH)
    assert outcomes(t, "first-asn-strip")[3] == "attacker"  # 666 relays "[777]": one hop, from a customer
    assert outcomes(t, "first-asn-strip", "enforce-first-as", [3])[3] == "victim"


def test_peerlock_lite_drops_customer_routes_through_a_tier1():
    t = graph(p2c=[(100, 777), (100, 5), (2, 5), (200, 2)], p2p=[(100, 200)])
    t.clique = [100, 200]
    assert outcomes(t, "leak", attacker=5)[2] == "attacker"  # [5 100 777] from a customer beats [200 100 777]
    assert outcomes(t, "leak", "peerlock-lite", [2], attacker=5)[2] == "victim"


# ---- route filters (bgpsim.sim.defences.filters) and combinations -------------------------------------

P24 = ipaddress.ip_network("1.2.0.0/24")  # the victim's /24; a sub-prefix hijack announces 1.2.0.0/25
P23 = ipaddress.ip_network("1.2.0.0/23")  # ... or its /23; the hijack 1.2.0.0/24


def filtered(topo, kind, policy=None, adopters=(), prefix=P24, vrps=None):
    res = trial.run(topo, kind, topo.index[666], topo.index[777], policy, [topo.index[a] for a in adopters],
                    prefix=prefix, vrps=vrps)
    return {int(topo.asns[i]): trial.OUTCOMES[o] for i, o in enumerate(res.outcome)}


def test_maxlen_drops_a_slash_25_and_not_a_slash_24_inside_a_slash_23():
    t = graph(**ROV_GRAPH)
    # Without it the /25 reaches every AS: 3 from its customer 666, 1 from 3, 2 and 5 from 1, 4 from 2.
    assert {a: o for a, o in filtered(t, "subprefix").items() if a != 777} == dict.fromkeys([1, 2, 3, 4, 5, 666], "attacker")
    o = filtered(t, "subprefix", "maxlen", [1])
    # 1 drops the /25, so 2, 4 and 5, which hear it only through 1, keep routing to the victim's /24;
    # 3 does not filter and keeps its customer's /25.
    assert (o[1], o[2], o[4], o[5], o[3]) == ("victim", "victim", "victim", "victim", "attacker")
    o = filtered(t, "subprefix", "maxlen", [1], prefix=P23)  # a /24 is not too long: it passes
    assert (o[1], o[2], o[5]) == ("attacker", "attacker", "attacker")
    o = filtered(t, "subprefix", "maxlen", [1], prefix=ipaddress.ip_network("2001:db8::/48"))  # a /49
    assert o[1] == "victim" and o[3] == "attacker"


def test_maxlen_limits_and_the_victims_own_long_prefix():
    import numpy as np

    t = graph(**ROV_GRAPH)
    p = defence("maxlen", t, [t.index[1]], longest=(25, 48))
    assert p.too_long(ipaddress.ip_network("1.2.0.0/25")) == 0 and p.too_long(ipaddress.ip_network("1.2.0.0/26")) == 1
    assert p.too_long(ipaddress.ip_network("2001:db8::/49")) == 1
    # The victim's own /25 is dropped by an adopter too: 1 and those behind it have no route at all.
    seeds = [Seed(t.index[777])]
    ribs = propagate(t, ipaddress.ip_network("1.2.0.0/25"), seeds, defence("maxlen", t, [t.index[1]]))
    routed = {int(t.asns[i]) for i in np.flatnonzero(ribs.has_route())}
    assert routed == {777, 4, 2}  # 2 hears it from its customer 4 and, adopting nothing, keeps it; 1 drops it


def test_bogon_filter_drops_bogon_prefixes_and_paths_through_bogon_ases():
    # 64512 is a private AS (RFC 6996) between 4 and the victim: a path through it is a bogon path.
    t = graph(p2c=[(1, 2), (1, 3), (2, 64512), (64512, 777), (3, 666), (1, 5)])
    o = filtered(t, "subprefix", "bogon", [1])
    assert o[1] == "attacker"  # the hijack's path (3 666) holds no bogon; the victim's holds 64512
    o = filtered(t, "prefix", "bogon", [1])  # 1 drops the victim's route: the attacker's is all it has
    assert (o[1], o[5]) == ("attacker", "attacker")
    t = graph(**ROV_GRAPH)
    o = filtered(t, "subprefix", "bogon", [1], prefix=ipaddress.ip_network("192.168.0.0/24"))  # RFC 1918
    assert (o[1], o[5]) == ("disconnected", "disconnected")  # 1 drops both routes; 5 hears them only from 1
    assert o[2] == "victim" and o[3] == "attacker"  # each from its customer, and neither filters


def test_filters_compose_with_rov():
    """rov+maxlen drops what either drops: ROV the exact-prefix hijack (an invalid origin), maxlen the
    /25 that a loose ROA (maxLength 25) lets through as valid when the attacker forges the victim's origin."""
    from bgpsim.rpki.rov import VRP, VRPTable

    t = graph(**ROV_GRAPH)
    assert filtered(t, "prefix", "maxlen", [1])[1] == "attacker"
    assert filtered(t, "prefix", "rov", [1])[1] == "victim"
    assert filtered(t, "prefix", "rov+maxlen", [1])[1] == "victim"
    loose = VRPTable([VRP(P24, 25, 777)])
    assert filtered(t, "forged-origin-subprefix", "rov", [1], vrps=loose)[1] == "attacker"
    assert filtered(t, "forged-origin-subprefix", "maxlen", [1], vrps=loose)[1] == "victim"
    assert filtered(t, "forged-origin-subprefix", "rov+maxlen", [1], vrps=loose)[1] == "victim"


def test_policy_names_are_checked_and_two_rankings_refused():
    from bgpsim.base.errors import InputError
    from bgpsim.sim.defences import policy_name

    t = graph(**ROV_GRAPH)
    assert policy_name("rov+maxlen+bogon") == "rov+maxlen+bogon"
    for bad, why in (("rov+maxlenn", "unknown policy 'maxlenn'"), ("rov+rov", "names a policy twice"), ("", "unknown")):
        with pytest.raises(InputError, match=why) as e:
            policy_name(bad, "--policy")
        assert "rov, rov-deprefer" in str(e.value) and "maxlen, bogon" in str(e.value)
    with pytest.raises(InputError, match="rov-deprefer and bgpsec both rank routes"):
        defence("rov-deprefer+bgpsec", t, [])
    p = defence("bgpsec+maxlen", t, [t.index[1]])
    assert p.ranks and p.prefer_after_length and not p.honest_inert and p.name == "bgpsec+maxlen"


CAIDA_2025 = SHARED / "caida" / "20250901.as-rel2.txt.bz2"
needs_caida = pytest.mark.skipif(not CAIDA_2025.exists(), reason="needs ../shared/data/caida (the shared data directory)")


@needs_caida
def test_maxlen_on_the_2025_internet_graph(tmp_path):
    """The issue's command: YouTube's prefix as a /24 hijacked with a /25 by Pakistan Telecom (AS17557)
    reaches almost every AS without a filter and almost none with maxlen everywhere; a /24 inside a /23
    gets through maxlen."""
    import json

    from bgpsim.cli import main

    def attacker_share(name, prefix, attack_prefix, *policy):
        out = tmp_path / name
        assert main(["run", "--engine", "steady", "--topology", str(CAIDA_2025),
                     "--attack", "subprefix", "--attacker", "17557", "--victim", "43515", "--prefix", prefix,
                     "--attack-prefix", attack_prefix, *policy, "--out", str(out), "--quiet", "--no-figures"]) == 0
        return json.loads((out / "result.json").read_text())["outcome"]["attacker"]

    assert attacker_share("none", "1.2.0.0/24", "1.2.0.0/25") > 0.99
    assert attacker_share("maxlen", "1.2.0.0/24", "1.2.0.0/25", "--policy", "maxlen", "--adoption", "1.0") < 0.01
    assert attacker_share("through", "1.2.0.0/23", "1.2.0.0/24", "--policy", "maxlen", "--adoption", "1.0") > 0.99


def test_maxlen_in_the_timed_teaching_scenario(tmp_path):
    """The bundled sub-prefix scenario (a /25 hijack, answered by VideoTube's two /26s): with maxlen
    everywhere the /25 never diverts anything; with /25 allowed it diverts everything, and the /26s of
    the answer are dropped too, so the hijack stands to the end."""
    import json

    from bgpsim.cli import main

    def result(name, *policy):
        assert main(["run", "--out", str(tmp_path / name), "--quiet", "--no-figures", *policy]) == 0
        return json.loads((tmp_path / name / "result.json").read_text())

    plain = result("plain")
    assert plain["peak"]["attacker"] == 1.0 and plain["outcome"]["victim"] == 1.0
    strict = result("maxlen", "--policy", "maxlen", "--adoption", "1.0")
    assert strict["peak"]["attacker"] == 0.0 and strict["outcome"]["victim"] == 1.0
    loose = result("loose", "--policy", "maxlen", "--adoption", "1.0", "--longest", "25,48")
    assert loose["peak"]["attacker"] == 1.0 and loose["outcome"]["attacker"] == 1.0


def test_prefix_list_accepts_from_a_customer_only_what_its_cone_registered():
    t = graph(**ROV_GRAPH)
    # 1's customer 3 has only 3 and 666 in its cone, and the victim's ROA registers the prefix to 777:
    # 1 refuses the hijack from 3 and keeps 2's route (777 is in 2's cone); 3 does not filter.
    o = outcomes(t, "prefix", "prefix-list", [1])
    assert (o[1], o[5], o[3]) == ("victim", "victim", "attacker")
    # A forged origin passes ROV but not the prefix list: 777 is not in 3's cone. The victim sits deeper
    # here, so the forged path (3 666 777) is shorter than the real one (2 4 8 777).
    t = graph(p2c=[(1, 2), (2, 4), (4, 8), (8, 777), (1, 3), (3, 666), (1, 5)])
    assert outcomes(t, "forged-origin", "rov", [1])[1] == "attacker"
    assert outcomes(t, "forged-origin", "prefix-list", [1])[1] == "victim"
    assert outcomes(t, "forged-origin", "prefix-list+rov", [1])[1] == "victim"


def test_prefix_list_stops_a_leak_at_the_leakers_provider():
    # 20, a customer of 10 and 30, leaks the victim's route from its provider 10 to its provider 30.
    # 30 prefers the customer route (20 10 777) to its provider's (40 10 777) unless it filters.
    t = graph(p2c=[(10, 777), (10, 20), (30, 20), (40, 30), (40, 10)])
    leak = lambda *pol: trial.run(t, "leak", t.index[20], t.index[777], *pol)  # noqa: E731
    path = lambda r: r.ribs[0].path(t.index[30])  # noqa: E731
    assert [int(t.asns[x]) for x in path(leak())] == [20, 10, 777]
    assert [int(t.asns[x]) for x in path(leak("prefix-list", [t.index[30]]))] == [40, 10, 777]


# 20, a customer of 10 and 30, leaks: the whole table, 5 routes on this 5-AS graph, where its cone is 1.
TABLE_LEAK_GRAPH = dict(p2c=[(10, 777), (10, 20), (30, 20), (40, 30), (40, 10)])


def test_max_prefix_closes_the_leakers_session_on_the_converged_state():
    from bgpsim.sim.defences import defence

    t = graph(**TABLE_LEAK_GRAPH)
    i = t.index
    pol = defence("max-prefix", t, [i[30]], max_prefix=3)  # 20 may send 1 + 3 prefixes; the leak sends 5
    assert pol.drops_session(i[20], i[30], t.n) and not pol.drops_session(i[20], i[30], 4)
    assert not pol.drops_session(i[20], i[10], t.n)  # 10 does not adopt
    r = trial.run(t, "leak", i[20], i[777], "max-prefix", [i[30]], max_prefix=3)
    assert [int(t.asns[x]) for x in r.ribs[0].path(i[30])] == [40, 10, 777]  # not the leak (20 10 777)
    r = trial.run(t, "leak", i[20], i[777], "max-prefix", [i[30]], max_prefix=4)  # 5 is not over 1 + 4
    assert [int(t.asns[x]) for x in r.ribs[0].path(i[30])] == [20, 10, 777]


def test_max_prefix_on_the_timed_engine_closes_the_session_when_the_leak_arrives(tmp_path):
    """The session closes when the leaked routes arrive; 30 goes back to its provider's route."""
    import json

    from bgpsim.cli import main

    topo = tmp_path / "leak.toml"
    customers: dict[int, list[int]] = {}
    for p, c in TABLE_LEAK_GRAPH["p2c"]:
        customers.setdefault(p, []).append(c)
        customers.setdefault(c, [])
    topo.write_text('name = "leak"\n' + "".join(f"[[as]]\nasn = {a}\ncustomers = {cs}\n" for a, cs in customers.items()))
    common = ["--topology", str(topo), "--attack", "leak", "--attacker", "20", "--victim", "777", "--quiet", "--no-figures"]
    assert main(["run", *common, "--out", str(tmp_path / "plain")]) == 0
    assert main(["run", *common, "--policy", "max-prefix", "--adopters", "30", "--max-prefix", "3",
                 "--out", str(tmp_path / "limited")]) == 0
    plain, limited = (json.loads((tmp_path / d / "result.json").read_text()) for d in ("plain", "limited"))
    marks = [m["label"] for m in limited["marks"]]
    assert "AS30 closes its session with AS20 (max-prefix)" in marks
    ases = lambda d: {row.split(",")[0]: row.split(",") for row in (tmp_path / d / "ases.csv").read_text().splitlines()[1:]}  # noqa: E731
    assert ases("plain")["30"][7] == "30 20 10 777"
    assert ases("limited")["30"][7] == "30 40 10 777"
    assert plain["outcome"]["attacker"] > limited["outcome"]["attacker"]


@needs_caida
def test_max_prefix_stops_a_full_table_leak_on_the_2025_internet_graph(tmp_path):
    """The 2019 leak through Allegheny Technologies (AS396531), a customer of DQE (AS33154) and Verizon
    (AS701), of a route of one of DQE's customers (AS4130): without a limit Verizon takes the leak (a
    customer route) and about 1 % of ASes follow it; with max-prefix at the leaker's two providers the
    session to the leaker closes and almost none do."""
    import json

    from bgpsim.cli import main

    def leaked(name, *policy):
        out = tmp_path / name
        assert main(["run", "--engine", "steady", "--topology", str(CAIDA_2025),
                     "--attack", "leak", "--attacker", "396531", "--victim", "4130", *policy, "--out", str(out),
                     "--quiet", "--no-figures"]) == 0
        return json.loads((out / "result.json").read_text())["outcome"]["attacker"]

    without = leaked("none")
    limited = leaked("limited", "--policy", "max-prefix", "--adopters", "701,33154")
    assert without > 0.005 and limited < without / 10


def test_the_report_names_every_filter_in_play_and_its_limits(tmp_path):
    from bgpsim.cli import main

    assert main(["run", "--policy", "rov+maxlen+max-prefix", "--adoption", "1.0", "--longest", "25,48",
                 "--out", str(tmp_path / "r"), "--quiet"]) == 0
    html = (tmp_path / "r" / "report.html").read_text()
    assert "with ROV (Route Origin Validation" in html and "and a prefix-length filter" in html
    assert "and a max-prefix limit" in html
    assert "Maxlen accepts prefixes up to /25 for IPv4 and /48 for IPv6; max-prefix allows 1,000 prefixes" in html
    assert "rov+maxlen+max-prefix deployed by 29 ASes; maxlen accepts prefixes up to /25" in html


def test_the_bundled_filter_scenarios(tmp_path):
    """teaching-maxlen: the /25 never diverts anything; teaching-maxlen-gap: the /24 inside the /23 takes
    everything; teaching-max-prefix: the leak spreads for the second its routes take to trip the limits,
    then both providers close their sessions, the withdrawals leave some ASes without a route for a
    moment, and the victim has every AS back while the leak still goes on (it stops at t = 200 s)."""
    import json
    from pathlib import Path

    from bgpsim.cli import main

    scenarios = Path(__file__).resolve().parent.parent / "scenarios"

    def run(name):
        assert main(["run", str(scenarios / f"{name}.toml"), "--out", str(tmp_path / name), "--quiet", "--no-figures"]) == 0
        timeline = [line.split(",") for line in (tmp_path / name / "timeline.csv").read_text().splitlines()[1:]]
        return json.loads((tmp_path / name / "result.json").read_text()), [[float(x) for x in row] for row in timeline]

    r, _ = run("teaching-maxlen")
    assert r["peak"]["attacker"] == 0.0 and r["outcome"]["victim"] == 1.0
    r, _ = run("teaching-maxlen-gap")
    assert r["peak"]["attacker"] == 1.0 and r["outcome"]["attacker"] == 1.0
    r, timeline = run("teaching-max-prefix")
    closed = [m for m in r["marks"] if "closes its session with AS65537 (max-prefix)" in m["label"]]
    assert len(closed) == 2 and r["peak"]["attacker"] > 0.5 and r["outcome"]["victim"] == 1.0
    after = [row for row in timeline if row[0] > 21.0]
    assert any(row[3] > 0 for row in after)  # disconnected for a moment: the withdrawals
    assert [row for row in after if row[0] < 200 and row[2] == 1.0]  # all back with the victim before the leak stops
    assert all(row[1] == 0.0 for row in after)


def test_the_report_has_a_sentence_for_every_defence():
    """The summary names each defence in words, and says ROV where the defence includes it."""
    from bgpsim.sim.defences import checks_roas, includes_rov
    from bgpsim.viz.story import POLICY_WORDS

    assert set(DEFENCES) <= set(POLICY_WORDS)
    for name in DEFENCES:
        assert ("ROV" in POLICY_WORDS[name].replace("without ROV", "")) == checks_roas(name), name
        assert POLICY_WORDS[name].endswith("and ROV") == includes_rov(name), name
