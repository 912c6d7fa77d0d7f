"""`bgpsim lab` with BIRD 2, FRR and GoBGP: the router plays one AS of a teaching scenario (ROV from our RTR cache
where the scenario deploys it), bgpsim plays its neighbours, and the router settles on the routes the
model chose, prefix by prefix."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import ROOT
from test_rtr_routers import need_bird, need_frr, need_gobgp


def lab(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bgpsim", "lab", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, check=False)


@pytest.mark.parametrize("router", [pytest.param("bird", marks=need_bird), pytest.param("frr", marks=need_frr),
                                    pytest.param("gobgp", marks=need_gobgp)])
def test_an_rov_adopter_played_by_a_router(router):
    """AS64503 hears the hijack at 10 s and drops it by ROV in the model; the router, with the scenario's
    VRPs over RTR, drops it too and holds the victim's route, with the same changes."""
    p = lab("teaching-prefix-rov", "--router", router, "--as", 64503, "--pace", 20)
    assert p.returncode == 0, p.stderr
    assert f"AS64503 played by {dict(bird='BIRD', frr='FRR', gobgp='GoBGP')[router]} with ROV" in p.stdout
    assert "the same changes, the same settled route" in p.stdout and "64508 64511" not in p.stdout
    assert "1 of 1 prefixes settle on the same route" in p.stdout
    assert "hears 3 UPDATEs from 3 of its 5 neighbours" in p.stderr  # the hijack among them


@need_bird
def test_without_rov_the_router_takes_the_hijack():
    """The same AS with --policy none: the model and BIRD both take the hijacker's route at 10 s."""
    p = lab("teaching-prefix-rov", "--as", 64503, "--pace", 20, "--policy", "none", "--quiet")
    assert p.returncode == 0, p.stderr
    assert "AS64503 played by BIRD, against" in p.stdout and p.stdout.count("  64508 64511") == 2


@need_bird
def test_a_hijacked_transit_played_by_bird_as_json():
    """AS64500 in the sub-prefix hijack: four prefixes come and go; BIRD settles on the model's route for
    each (the order of changes made within milliseconds may differ: listed, not counted)."""
    p = lab("teaching-subprefix", "--router", "bird", "--as", 64500, "--pace", 40, "--format", "json", "--quiet")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["asn"] == 64500 and doc["policy"] == "none" and len(doc["prefixes"]) == 4
    assert all(c["settled_same"] for c in doc["prefixes"])
    last = {c["prefix"]: c["router"][-1][1] for c in doc["prefixes"]}
    assert last["198.51.100.0/25"] == "64496 64498 64503 64508 64511"


@pytest.mark.parametrize("router", [pytest.param("frr", marks=need_frr), pytest.param("gobgp", marks=need_gobgp)])
def test_a_leak_seen_by_a_router(router):
    """AS64508 in the route leak: the router's best route passes through the leak and back, and settles
    where the model's does."""
    p = lab("teaching-leak", "--router", router, "--as", 64508, "--pace", 40, "--quiet")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "1 of 1 prefixes settle on the same route" in p.stdout
    assert p.stdout.count("  64503 64502 65537 64500 64499 64510") == 2  # the leaked route, held on the way by both


@pytest.mark.parametrize("router", [pytest.param("bird", marks=need_bird), pytest.param("frr", marks=need_frr),
                                    pytest.param("gobgp", marks=need_gobgp)])
def test_max_prefix_closes_the_leakers_session(router):
    """AS64500, a provider of the leaker with a max-prefix limit: the model closes the leaker's session;
    the router, sent the whole table the leak re-exports, closes it too with a Cease (RFC 4486 subcode 1,
    Maximum Number of Prefixes Reached) and keeps the victim's route."""
    p = lab("teaching-max-prefix", "--router", router, "--as", 64500, "--pace", 40, "--format", "json", "--quiet")
    assert p.returncode == 0, p.stdout + p.stderr
    doc = json.loads(p.stdout)
    assert doc["policy"] == "max-prefix" and doc["sessions_closed"]["model"] == [65537]
    assert doc["sessions_closed"]["router"] == {"65537": "the peer sent NOTIFICATION 6/1 (Cease)"}
    assert [c["router"][-1][1] for c in doc["prefixes"]] == ["64499 64510"]


@need_bird
def test_maxlen_played_by_bird():
    """Everyone drops prefixes longer than /24 in teaching-maxlen: BIRD at AS64508, the hijacker's provider,
    is sent the /25 and drops it; with --policy none it takes it, as the model does."""
    got = {}
    for policy in ("maxlen", "none"):
        p = lab("teaching-maxlen", "--router", "bird", "--as", 64508, "--pace", 40, "--policy", policy, "--format",
                "json", "--quiet")
        assert p.returncode == 0, p.stdout + p.stderr
        doc = json.loads(p.stdout)
        assert all(c["settled_same"] for c in doc["prefixes"])
        got[doc["policy"]] = {c["prefix"]: [path for _, path in c["router"]] for c in doc["prefixes"]}
    assert got["maxlen"]["198.51.100.0/25"] == [] and got["none"]["198.51.100.0/25"] == ["64511"]


@need_frr
def test_policy_rov_where_the_scenario_has_none():
    """--policy rov: AS64500 deploys ROV in the model and in FRR (the victim's ROA, the scenario naming none):
    the three more-specifics of the sub-prefix hijack are dropped by both."""
    p = lab("teaching-subprefix", "--router", "frr", "--as", 64500, "--pace", 40, "--policy", "rov")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "AS64500 played by FRR with ROV" in p.stdout and "4 of 4 prefixes settle on the same route" in p.stdout
    assert p.stdout.count("  the same changes, the same settled route") == 4


@need_frr
def test_a_roa_published_during_the_hijack_reaches_the_router_when_the_model_says():
    """teaching-roa-delay: the ROA comes at 60 s and AS64508's routers have it at 182.2 s in the model; the
    lab's cache gets it then (Serial Notify), and FRR keeps the hijacker's route it took at 10 s until
    then, drops it and settles on the victim's, as the model does. Between the two it may hold no route
    for a while or none at all: on a loaded machine the victim's route can reach it before its cache's
    news does (the lab runs 40 model seconds a second)."""
    p = lab("teaching-roa-delay", "--router", "frr", "--as", 64508, "--policy", "rov", "--pace", 40, "--format", "json",
            "--quiet")
    assert p.returncode == 0, p.stdout + p.stderr
    (c,) = json.loads(p.stdout)["prefixes"]
    paths = [path for _, path in c["router"]]
    hijacked = paths.index("64511")
    assert c["settled_same"] and paths[-1] not in (None, "64511")
    assert next(t for t, path in c["router"][hijacked:] if path != "64511") > 182.2


def test_a_defence_no_router_plays_is_one_line():
    p = lab("teaching-bgpsec", "--as", 64500)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "deploys bgpsec" in p.stderr
    assert "none of them speaks BGPsec" in p.stderr


def test_an_as_not_in_the_scenario_is_one_line():
    p = lab("teaching-prefix-rov", "--as", 4200000000)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "AS4200000000 is not in the scenario's topology" in p.stderr
