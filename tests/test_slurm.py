"""SLURM (RFC 8416, and version 2 with ASPA): every shared SLURM file, Routinator's SLURM outputs
against its JSON outputs, one error with its JSON path for each way of breaking the schema, the
filters against their definition, and the overlap rule of section 4.2."""

from __future__ import annotations

import copy
import ipaddress
import json
import random

import pytest
from helpers import SHARED

from bgpsim.base.errors import InputError
from bgpsim.rpki.rov import VRP
from bgpsim.rpki.slurm import (AspaAssertion, BgpsecAssertion, BgpsecFilter, PrefixAssertion, PrefixFilter, _filter_origins,
                        apply_slurm, check_overlaps, load_slurm, parse_slurm)
from bgpsim.rpki.vrps import ASPA, NO_TA, Origin, Payloads, RouterKey, read_file

SLURM_DIR = SHARED / "rpki" / "slurm"
ROUTINATOR = SHARED / "rpki" / "vrp_format_examples" / "routinator_test_output"
STAYRTR = SHARED / "rpki" / "vrp_format_examples" / "stayrtr"
net = ipaddress.ip_network

# The one shared file we reject, and why: it is the example of RFC 8416 section 3.5 verbatim, whose
# SKIs are placeholders ("Zm9v" is 3 octets, "<some base64 SKI>" is not base64url); an SKI is the
# 20 octets of RFC 6487 section 4.8.2, and rpki-rs and FORT reject these too.
REJECTED = {"routinator_full.json": ("validationOutputFilters.bgpsecFilters[1].SKI", "want an SKI of 20 octets")}


def need(path):
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared RPKI data set is not here)")
    return path


def shared_slurm_files():
    return sorted(SLURM_DIR.iterdir()) if SLURM_DIR.exists() else []


@pytest.mark.parametrize("path", shared_slurm_files(), ids=lambda p: p.name)
def test_every_shared_slurm_file(path):
    if path.name in REJECTED:
        where, message = REJECTED[path.name]
        with pytest.raises(InputError) as info:
            load_slurm(path)
        assert str(info.value).startswith(f"{path}:{where}: {message}"), info.value
    else:
        s = load_slurm(path)
        assert s.version in (1, 2) and s.source == str(path)


def test_shared_slurm_files_present():
    need(SLURM_DIR)
    assert {"fort_demo.slurm", "rpki-rs_full.json", "rpki-rs_full_v2.json"} <= {p.name for p in shared_slurm_files()}


def test_rpki_rs_full_v2_content():
    """The same values rpki-rs's own test expects of this file (slurm.rs, full_slurm_v2)."""
    s = load_slurm(need(SLURM_DIR / "rpki-rs_full_v2.json"))
    f, a = "validationOutputFilters", "locallyAddedAssertions"
    assert s.version == 2
    assert s.prefix_filters == (
        PrefixFilter(net("192.0.2.0/24"), None, "All VRPs encompassed by prefix", f"{f}.prefixFilters[0]"),
        PrefixFilter(None, 64496, "All VRPs matching ASN", f"{f}.prefixFilters[1]"),
        PrefixFilter(net("198.51.100.0/24"), 64497, "All VRPs encompassed by prefix, matching ASN", f"{f}.prefixFilters[2]"))
    assert [(x.asn, x.ski) for x in s.bgpsec_filters] == [(64496, None), (None, b"12345678901234567890"),
                                                          (64497, b"deadbeatdeadbeatdead")]
    assert [(x.customer, x.comment) for x in s.aspa_filters] == [(64496, "ASPAs matching Customer ASID 64496")]
    assert s.prefix_assertions == (
        PrefixAssertion(net("198.51.100.0/24"), 64496, None, "My other important route", f"{a}.prefixAssertions[0]"),
        PrefixAssertion(net("2001:db8::/32"), 64496, 48, "My de-aggregated route", f"{a}.prefixAssertions[1]"))
    assert s.bgpsec_assertions == (BgpsecAssertion(64496, b"12345678901234567890", b"blubb", None,
                                                   f"{a}.bgpsecAssertions[0]"),)
    assert s.aspa_assertions == (AspaAssertion(64496, (64497, 64498),
                                               "Locally assert 64497 and 64498 are providers for 64496",
                                               f"{a}.aspaAssertions[0]"),)
    v1 = load_slurm(SLURM_DIR / "rpki-rs_full.json")
    assert v1.version == 1 and v1.aspa_filters == () and v1.aspa_assertions == ()
    assert v1.prefix_filters == s.prefix_filters and v1.bgpsec_assertions == s.bgpsec_assertions


@pytest.mark.parametrize("name", ("000", "001", "010", "011", "100", "101", "110", "111"))
def test_routinator_slurm_outputs_assert_its_json_outputs(name):
    """Routinator's `slurm` and `slurm2` formats write payloads as assertions. Applied to nothing,
    they must give what its `json` format lists (slurm without ASPAs: version 1 has none)."""
    want = read_file(need(ROUTINATOR / f"{name}.json")).sorted()
    for ext, aspas in (("slurm", []), ("slurm2", want.aspas)):
        got = load_slurm(ROUTINATOR / f"{name}.{ext}").apply(Payloads()).sorted()
        assert (got.origins, got.router_keys, got.aspas) == (want.origins, want.router_keys, aspas), ext


def test_apply_rpki_rs_v2_to_rpki_client_data():
    p = read_file(need(STAYRTR / "cmd_stayrtr_test.rpki.json"))
    s = load_slurm(need(SLURM_DIR / "rpki-rs_full_v2.json"))
    q = s.apply(p)
    gone = {o.vrp for o in p.origins} - {o.vrp for o in q.origins}
    assert gone == {VRP(net("192.0.2.0/24"), 24, 1)}  # inside the 192.0.2.0/24 filter
    added = [o for o in q.origins if o not in p.origins]
    assert added == [Origin(VRP(net("198.51.100.0/24"), 24, 64496), NO_TA),
                     Origin(VRP(net("2001:db8::/32"), 48, 64496), NO_TA)]
    # the key of AS64496 is filtered by ASN; the asserted one (same ASN) is added after the filters
    assert [k.asn for k in q.router_keys] == [15562, 15562, 64496]
    assert q.router_keys[-1] == RouterKey(64496, b"12345678901234567890", b"blubb", NO_TA)
    assert q.aspas == [ASPA(15562, (2914, 8283, 51088, 206238)), ASPA(64496, (64497, 64498), NO_TA)]
    assert q.generated == p.generated


def test_prefix_filter_semantics():
    o = [Origin(VRP(net(p), m, a), "t") for p, m, a in [
        ("10.0.0.0/8", 8, 1), ("10.1.0.0/16", 24, 1), ("10.1.2.0/24", 24, 2), ("11.0.0.0/8", 8, 1),
        ("10.0.0.0/7", 8, 1), ("::a00:0/104", 104, 1), ("2001:db8::/32", 48, 3)]]
    f = [PrefixFilter(net("10.1.0.0/16"), None)]
    assert [x.vrp.prefix for x in _filter_origins(o, f)] == [net(p) for p in (
        "10.0.0.0/8", "11.0.0.0/8", "10.0.0.0/7", "::a00:0/104", "2001:db8::/32")]  # equal or more specific only
    assert len(_filter_origins(o, [PrefixFilter(net("10.0.0.0/8"), 2)])) == 6  # prefix and ASN must both match
    assert [x.vrp.asn for x in _filter_origins(o, [PrefixFilter(None, 1)])] == [2, 3]
    assert len(_filter_origins(o, [PrefixFilter(net("::/0"), None)])) == 5  # the family matters


def test_prefix_filters_against_their_definition():
    """The binary-search filter equals 'drop what any filter matches' on random sets."""
    rnd = random.Random(8416)

    def prefix():
        if rnd.random() < 0.7:
            length = rnd.choice([0, 7, 8, 15, 16, 23, 24, 32])
            return net(((10 << 24 | rnd.getrandbits(20) << 4) >> (32 - length) << (32 - length), length))
        length = rnd.choice([0, 32, 48, 64, 128])
        return net(((0x20010DB8 << 96 | rnd.getrandbits(96)) >> (128 - length) << (128 - length), length))

    for _ in range(200):
        origins = []
        for _ in range(rnd.randint(0, 40)):
            p = prefix()
            origins.append(Origin(VRP(p, rnd.randint(p.prefixlen, p.max_prefixlen), rnd.randint(0, 3))))
        filters = [PrefixFilter(prefix() if rnd.random() < 0.8 else None, rnd.choice([None, 0, 1, 2, 3]))
                   for _ in range(rnd.randint(0, 5))]
        filters = [f for f in filters if f.prefix is not None or f.asn is not None]
        want = [x for x in origins if not any(f.matches(x.vrp) for f in filters)]
        assert _filter_origins(origins, filters) == want


def test_bgpsec_and_aspa_filters():
    keys = [RouterKey(1, b"a" * 20, b"k"), RouterKey(1, b"b" * 20, b"k"), RouterKey(2, b"a" * 20, b"k")]
    assert [f.matches(k) for f in (BgpsecFilter(1, None), BgpsecFilter(None, b"a" * 20), BgpsecFilter(1, b"a" * 20))
            for k in keys] == [True, True, False, True, False, True, True, False, False]


# ---------------------------------------------------------------------------------------------
# Broken variants: each one error, naming the JSON path


def _v2():
    return json.loads(need(SLURM_DIR / "rpki-rs_full_v2.json").read_text())


def _v1():
    return json.loads(need(SLURM_DIR / "rpki-rs_full.json").read_text())


F, A = "validationOutputFilters", "locallyAddedAssertions"
_DELETE = object()
BROKEN = [
    # (document, path to change, new value, JSON path of the error, message)
    (_v2, ("slurmVersion",), 3, "slurmVersion", "want slurmVersion 1"),
    (_v2, ("slurmVersion",), "2", "slurmVersion", "want slurmVersion 1"),
    (_v2, ("slurmVersion",), True, "slurmVersion", "want slurmVersion 1"),
    (_v2, ("slurmVersion",), 2.0, "slurmVersion", "want slurmVersion 1"),
    (_v2, ("slurmVersion",), _DELETE, "slurmVersion", "missing key"),
    (_v2, (F,), _DELETE, F, "missing key"),
    (_v2, (F,), [], F, "want an object"),
    (_v2, ("extra",), {}, "extra", "unknown key 'extra'"),
    (_v1, (F, "aspaFilters"), [], f"{F}.aspaFilters", "needs slurmVersion 2"),
    (_v1, (A, "aspaAssertions"), [], f"{A}.aspaAssertions", "needs slurmVersion 2"),
    (_v2, (A, "aspaAssertions"), _DELETE, f"{A}.aspaAssertions", "missing key"),
    (_v2, (F, "bgpsecFilters"), _DELETE, f"{F}.bgpsecFilters", "missing key"),
    (_v2, (F, "prefixFilters"), {}, f"{F}.prefixFilters", "want a list"),
    (_v2, (F, "routeFilters"), [], f"{F}.routeFilters", "unknown key"),
    (_v2, (F, "prefixFilters", 2, "maxPrefixLength"), 24, f"{F}.prefixFilters[2].maxPrefixLength",
     "unknown key 'maxPrefixLength'"),
    (_v2, (F, "prefixFilters", 1), {"comment": "only a comment"}, f"{F}.prefixFilters[1]", "needs 'prefix', 'asn'"),
    (_v2, (F, "prefixFilters", 1), "AS64496", f"{F}.prefixFilters[1]", "want a prefix filter object"),
    (_v2, (F, "prefixFilters", 0, "prefix"), "192.0.2.1/24", f"{F}.prefixFilters[0].prefix", "host bits set"),
    (_v2, (F, "prefixFilters", 0, "prefix"), "192.0.2.0/33", f"{F}.prefixFilters[0].prefix", "bad prefix"),
    (_v2, (F, "prefixFilters", 0, "prefix"), "192.0.2.0", f"{F}.prefixFilters[0].prefix", "want a prefix"),
    (_v2, (F, "prefixFilters", 0, "prefix"), 3221225984, f"{F}.prefixFilters[0].prefix", "want a prefix"),
    (_v2, (F, "prefixFilters", 1, "asn"), -1, f"{F}.prefixFilters[1].asn", "want an AS number"),
    (_v2, (F, "prefixFilters", 1, "asn"), 2**32, f"{F}.prefixFilters[1].asn", "want an AS number"),
    (_v2, (F, "prefixFilters", 1, "asn"), "64496", f"{F}.prefixFilters[1].asn", "want an AS number"),
    (_v2, (F, "prefixFilters", 1, "asn"), 64496.0, f"{F}.prefixFilters[1].asn", "want an AS number"),
    (_v2, (F, "prefixFilters", 1, "asn"), None, f"{F}.prefixFilters[1].asn", "want an AS number"),
    (_v2, (F, "prefixFilters", 1, "comment"), 5, f"{F}.prefixFilters[1].comment", "want 'comment' as a string"),
    (_v2, (F, "bgpsecFilters", 0), {}, f"{F}.bgpsecFilters[0]", "needs 'asn', 'SKI'"),
    (_v2, (F, "bgpsecFilters", 1, "SKI"), "MTIzNDU2Nzg5MDEyMzQ1Njc4OTA=", f"{F}.bgpsecFilters[1].SKI", "base64url"),
    (_v2, (F, "bgpsecFilters", 1, "SKI"), "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ", f"{F}.bgpsecFilters[1].SKI", "4.8.2), got 19"),
    (_v2, (F, "bgpsecFilters", 1, "SKI"), "MTIzNDU2Nzg5MDEyMzQ1Njc4OTB", f"{F}.bgpsecFilters[1].SKI", "not canonical"),
    (_v2, (F, "bgpsecFilters", 1, "SKI"), "+TIzNDU2Nzg5MDEyMzQ1Njc4OTA", f"{F}.bgpsecFilters[1].SKI", "base64url"),
    (_v2, (F, "bgpsecFilters", 1, "routerPublicKey"), "Ymx1YmI", f"{F}.bgpsecFilters[1].routerPublicKey", "unknown key"),
    (_v2, (F, "aspaFilters", 0, "customerAsid"), _DELETE, f"{F}.aspaFilters[0].customerAsid", "missing key"),
    (_v2, (F, "aspaFilters", 0, "customerAsn"), 1, f"{F}.aspaFilters[0].customerAsn", "unknown key"),
    (_v2, (A, "prefixAssertions", 1, "maxPrefixLength"), 31, f"{A}.prefixAssertions[1].maxPrefixLength",
     "want maxPrefixLength from 32 to 128"),
    (_v2, (A, "prefixAssertions", 1, "maxPrefixLength"), 129, f"{A}.prefixAssertions[1].maxPrefixLength",
     "want maxPrefixLength from 32 to 128"),
    (_v2, (A, "prefixAssertions", 1, "maxPrefixLength"), "48", f"{A}.prefixAssertions[1].maxPrefixLength",
     "want maxPrefixLength"),
    (_v2, (A, "prefixAssertions", 0, "asn"), _DELETE, f"{A}.prefixAssertions[0].asn", "missing key 'asn'"),
    (_v2, (A, "prefixAssertions", 0, "prefix"), _DELETE, f"{A}.prefixAssertions[0].prefix", "missing key 'prefix'"),
    (_v2, (A, "prefixAssertions", 0, "maxLength"), 24, f"{A}.prefixAssertions[0].maxLength", "unknown key"),
    (_v2, (A, "bgpsecAssertions", 0, "routerPublicKey"), _DELETE, f"{A}.bgpsecAssertions[0].routerPublicKey",
     "missing key"),
    (_v2, (A, "bgpsecAssertions", 0, "routerPublicKey"), "", f"{A}.bgpsecAssertions[0].routerPublicKey", "non-empty"),
    (_v2, (A, "bgpsecAssertions", 0, "routerPublicKey"), "Ymx1Ym", f"{A}.bgpsecAssertions[0].routerPublicKey",
     "not canonical"),
    (_v2, (A, "bgpsecAssertions", 0, "SKI"), _DELETE, f"{A}.bgpsecAssertions[0].SKI", "missing key"),
    (_v2, (A, "aspaAssertions", 0, "providerAsns"), [], f"{A}.aspaAssertions[0].providerAsns", "non-empty"),
    (_v2, (A, "aspaAssertions", 0, "providerAsns"), [64497, 64497], f"{A}.aspaAssertions[0].providerAsns", "twice"),
    (_v2, (A, "aspaAssertions", 0, "providerAsns"), [64496], f"{A}.aspaAssertions[0].providerAsns", "its own"),
    (_v2, (A, "aspaAssertions", 0, "providerAsns", 1), "AS64498", f"{A}.aspaAssertions[0].providerAsns[1]", "AS number"),
    (_v2, (A, "aspaAssertions", 0, "providerSet"), [1], f"{A}.aspaAssertions[0].providerSet", "unknown key"),
    (_v2, (A, "aspaAssertions", 0, "customerAsn"), 2**32, f"{A}.aspaAssertions[0].customerAsn", "AS number"),
]


def _break(doc, path, value):
    *head, last = path
    node = doc
    for k in head:
        node = node[k]
    if value is _DELETE:
        del node[last]
    else:
        node[last] = value
    return doc


@pytest.mark.parametrize("make,path,value,where,message", BROKEN, ids=[f"{b[3]}:{b[4]}" for b in BROKEN])
def test_broken_variants(make, path, value, where, message):
    doc = make()
    parse_slurm(json.dumps(doc), "ok.json")  # the unbroken file parses
    with pytest.raises(InputError) as info:
        parse_slurm(json.dumps(_break(copy.deepcopy(doc), path, value)), "bad.json")
    assert str(info.value).startswith(f"bad.json:{where}: ") and message in str(info.value), info.value


@pytest.mark.parametrize("text,where,message", [
    ('{"slurmVersion": 1, "slurmVersion": 1}', "slurmVersion", "appears twice"),
    ('{"slurmVersion": 1, "validationOutputFilters": {"prefixFilters": [{"asn": 1, "asn": 2}], "bgpsecFilters": []},'
     ' "locallyAddedAssertions": {"prefixAssertions": [], "bgpsecAssertions": []}}',
     "validationOutputFilters.prefixFilters[0].asn", "appears twice"),
    ('{"slurmVersion": 1,\n "validationOutputFilters": {,}}', "2:30", "bad JSON"),
    ('{"slurmVersion": NaN}', None, "NaN is not JSON"),
    ('{"slurmVersion": 1, "x": ' + "[" * 50000 + "]" * 50000 + "}", None, "nested too deeply"),
    ("[]", None, "want a SLURM object"),
    ("", "1:1", "bad JSON"),
])
def test_broken_json(text, where, message):
    with pytest.raises(InputError) as info:
        parse_slurm(text, "bad.json")
    prefix = "bad.json: " if where is None else f"bad.json:{where}: "
    assert str(info.value).startswith(prefix) and message in str(info.value), info.value


@pytest.mark.parametrize("name,where", [
    ("prefixfile_slurm.json", "validationOutputFilters.aspaFilters"),  # version 2 without the ASPA members
    ("cmd_stayrtr_test.slurm.json", "locallyAddedAssertions.bgpsecAssertions"),  # a required member left out
])
def test_stayrtr_lenient_files_are_rejected(name, where):
    """StayRTR's test files lean on its leniency; a strict reader names the first fault."""
    with pytest.raises(InputError) as info:
        load_slurm(need(STAYRTR / name))
    assert str(info.value).startswith(f"{STAYRTR / name}:{where}: missing key"), info.value


def test_parser_is_total(tmp_path):
    data = need(SLURM_DIR / "rpki-rs_full_v2.json").read_bytes()
    rnd = random.Random(8416)
    for k in range(1500):
        b = bytearray(data)
        i = rnd.randrange(len(b) + 1)
        op = rnd.randrange(3)
        if op == 0 and b:
            b[min(i, len(b) - 1)] = rnd.choice(b'0123456789"{}[],:-.AaZz/ \xff')
        elif op == 1:
            del b[i:i + rnd.randrange(1, 12)]
        else:
            b[i:i] = rnd.choice([b"1", b"-", b'"', b",", b"{}", b"[]", b"null", b"=", b"/33"])
        f = tmp_path / f"m{k % 2}.json"
        f.write_bytes(bytes(b))
        try:
            load_slurm(f)
        except InputError as e:
            assert str(e).startswith(str(f)), e


# ---------------------------------------------------------------------------------------------
# Several files (RFC 8416 section 4.2)


def slurm(source, prefix_filters=(), prefix_assertions=(), bgpsec_filters=(), aspa_assertions=()):
    doc = {"slurmVersion": 2,
           "validationOutputFilters": {"prefixFilters": list(prefix_filters), "bgpsecFilters": list(bgpsec_filters),
                                       "aspaFilters": []},
           "locallyAddedAssertions": {"prefixAssertions": list(prefix_assertions), "bgpsecAssertions": [],
                                      "aspaAssertions": list(aspa_assertions)}}
    return parse_slurm(json.dumps(doc), source)


def test_overlapping_files_are_refused():
    a = slurm("a.json", prefix_filters=[{"prefix": "10.0.0.0/8"}, {"asn": 64496}])
    inside = slurm("b.json", prefix_assertions=[{"prefix": "10.1.0.0/16", "asn": 1}])
    with pytest.raises(InputError) as info:
        check_overlaps([a, inside])
    assert str(info.value).startswith("b.json:locallyAddedAssertions.prefixAssertions[0]: 10.1.0.0/16 overlaps "
                                      "10.0.0.0/8 of a.json at validationOutputFilters.prefixFilters[0]")
    with pytest.raises(InputError) as info:  # the other way round: the later file holds the wider prefix
        check_overlaps([inside, a])
    assert str(info.value).startswith("a.json:validationOutputFilters.prefixFilters[0]: 10.0.0.0/8 overlaps 10.1.0.0/16")
    keys = [slurm(n, bgpsec_filters=[{"asn": 64500}]) for n in ("c.json", "d.json")]
    with pytest.raises(InputError, match=r"^d.json:validationOutputFilters.bgpsecFilters\[0\]: AS64500 also appears"):
        check_overlaps(keys)
    aspas = [slurm(n, aspa_assertions=[{"customerAsn": 7, "providerAsns": [8]}]) for n in ("e.json", "f.json")]
    with pytest.raises(InputError, match=r"^f.json:locallyAddedAssertions.aspaAssertions\[0\]: customer AS7"):
        check_overlaps(aspas)


def test_disjoint_files_apply_together():
    a = slurm("a.json", prefix_filters=[{"prefix": "10.0.0.0/8"}, {"asn": 64496}])
    b = slurm("b.json", prefix_filters=[{"asn": 64496}], prefix_assertions=[{"prefix": "11.0.0.0/8", "asn": 5,
                                                                            "maxPrefixLength": 16}])
    check_overlaps([a, b])  # the same ASN in prefix filters is no overlap: section 4.2 names prefixes there
    p = Payloads([Origin(VRP(net("10.9.0.0/16"), 16, 1)), Origin(VRP(net("12.0.0.0/8"), 8, 64496)),
                  Origin(VRP(net("12.0.0.0/8"), 8, 64497))])
    q = apply_slurm(p, [a, b])
    assert q.origins == [Origin(VRP(net("12.0.0.0/8"), 8, 64497)), Origin(VRP(net("11.0.0.0/8"), 16, 5), NO_TA)]
    c = slurm("c.json", prefix_assertions=[{"prefix": "11.0.0.0/8", "asn": 6}])
    with pytest.raises(InputError, match="RFC 8416 section 4.2"):
        apply_slurm(p, [a, b, c])


def test_assertions_survive_filters_of_the_same_file():
    s = slurm("s.json", prefix_filters=[{"prefix": "10.0.0.0/8"}],
              prefix_assertions=[{"prefix": "10.0.0.0/8", "asn": 1, "maxPrefixLength": 24}])
    q = s.apply(Payloads([Origin(VRP(net("10.0.0.0/8"), 8, 1), "ripe")]))
    assert q.origins == [Origin(VRP(net("10.0.0.0/8"), 24, 1), NO_TA)]
