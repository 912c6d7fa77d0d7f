"""Traffic weighting: the diverted share, worked out by hand, for each kind of weight."""

import gzip

import pytest
from helpers import SHARED, graph

from bgpsim.base.errors import InputError
from bgpsim.sim.plan import resolve
from bgpsim.sim.run import simulate
from bgpsim.sim.scenario import load_scenario
from bgpsim.sim.weighting import weights

# Tier-1s 1 and 2 peer; 1 sells to 3 and 4, 2 to 5; victim 6 buys from 3, attacker 7 from 5. In an
# exact-prefix hijack 1, 3, 4 reach the victim and 2, 5 the attacker (tests/test_routing.py).
TOPO = """name = "hand"
[[as]]
asn = 1
peers = [2]
customers = [3, 4]
[[as]]
asn = 2
customers = [5]
[[as]]
asn = 3
customers = [6]
[[as]]
asn = 4
[[as]]
asn = 5
customers = [7]
[[as]]
asn = 6
[[as]]
asn = 7
"""


def scenario(tmp_path, weighting):
    (tmp_path / "t.toml").write_text(TOPO)
    (tmp_path / "s.toml").write_text(f'name = "w"\ntopology = "t.toml"\nweighting = {weighting}\n'
                                     '[victim]\nasn = 6\nprefixes = ["10.0.0.0/16"]\n[attack]\nkind = "prefix"\nattacker = 7\n')
    return simulate(resolve(load_scenario(tmp_path / "s.toml")))


def test_uniform(tmp_path):
    r = scenario(tmp_path, '"uniform"')
    assert r.outcome.attacker == pytest.approx(2 / 5)
    assert r.traffic.diverted == pytest.approx(2 / 5)


def test_customer_cone(tmp_path):
    # Cones: 1 -> {1,3,4,6} = 4, 2 -> {2,5,7} = 3, 3 -> 2, 4 -> 1, 5 -> 2. Attacker side: 2 and 5.
    r = scenario(tmp_path, '"cone"')
    assert r.traffic.diverted == pytest.approx((3 + 2) / (4 + 3 + 2 + 1 + 2))


def test_csv_weights(tmp_path):
    (tmp_path / "w.csv").write_text("asn,weight\n1,10\n2,30\n5,60\n999,5\n")
    r = scenario(tmp_path, '"w.csv"')
    assert r.traffic.diverted == pytest.approx(0.9)


def test_address_space(tmp_path):
    # pyasn format; AS2 originates a /16 and a /24, AS4 a /16, AS1 an IPv6 /32 (ignored for an IPv4 target),
    # and a CAIDA-format MOAS line splits a /16 between AS5 and AS3.
    table = tmp_path / "pfx2as.gz"
    table.write_bytes(gzip.compress(b"; comment\n10.1.0.0/16\t2\n10.2.0.0/24\t2\n10.3.0.0/16\t4\n2001:db8::/32\t1\n"
                                    b"10.4.0.0\t16\t5_3\n"))
    (tmp_path / "t.toml").write_text(TOPO)
    r = scenario(tmp_path, '{ kind = "space", pfx2as = "pfx2as.gz" }')
    attacker_side = 65536 + 256 + 32768  # AS2 and AS5
    assert r.traffic.diverted == pytest.approx(attacker_side / (attacker_side + 65536 + 32768))


def test_bad_weight_files(tmp_path):
    t = graph(p2c=[(1, 2)])
    f = tmp_path / "w.csv"
    f.write_text("asn,weight\n1,2\n2,-1\n")
    with pytest.raises(InputError, match=r"w\.csv:3:"):
        weights(str(f), t)
    f.write_text("5,1\n")
    with pytest.raises(InputError, match="no AS of the topology"):
        weights(str(f), t)
    p = tmp_path / "p.txt"
    p.write_text("10.0.0.0/8\t1\nnot a line\n")
    with pytest.raises(InputError, match=r"p\.txt:2:"):
        weights("space", t, 4, str(p))


@pytest.mark.skipif(not (SHARED / "pfx2as").exists(), reason="needs ../shared/data/pfx2as (the shared data directory)")
def test_real_pfx2as_table():
    # RouteViews 2014-05-13: about 2.7 billion IPv4 addresses announced; AS3356 originates many of them.
    t = graph(p2c=[(3356, 701), (3356, 4200000001)])  # a private ASN originates nothing
    w, _ = weights("space", t, 4, str(SHARED / "pfx2as" / "ipasn_20140513.dat.gz"))
    assert w[t.index[3356]] > 1e6 and w[t.index[4200000001]] == 0
