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
    """AS64501 drops the hijack by ROV in the model; the router, with the scenario's VRPs over RTR, holds
    the victim's route as the model does, with the same changes."""
    p = lab("teaching-prefix-rov", "--router", router, "--as", 64501)
    assert p.returncode == 0, p.stderr
    assert f"AS64501 played by {dict(bird='BIRD', frr='FRR', gobgp='GoBGP')[router]} with ROV" in p.stdout
    assert "the same changes, the same settled route" in p.stdout
    assert "1 of 1 prefixes settle on the same route" in p.stdout


@need_bird
def test_a_hijacked_transit_played_by_bird_as_json():
    """AS64500 in the sub-prefix hijack: four prefixes come and go; BIRD settles on the model's route for
    each (the order of changes made within milliseconds may differ: listed, not counted)."""
    p = lab("teaching-subprefix", "--router", "bird", "--as", 64500, "--pace", 40, "--format", "json", "--quiet")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["asn"] == 64500 and not doc["rov"] and len(doc["prefixes"]) == 4
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


def test_an_as_not_in_the_scenario_is_one_line():
    p = lab("teaching-prefix-rov", "--as", 4200000000)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "AS4200000000 is not in the scenario's topology" in p.stderr
