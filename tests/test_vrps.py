"""Validated payload sets (rpki.vrps) and `bgpsim rpki vrps`: Routinator's own expected outputs byte
for byte, rpki-client's JSON layout, strict readers that name the place of every fault."""

from __future__ import annotations

import copy
import ipaddress
import json
import random
from datetime import datetime, timezone

import pytest
from helpers import SHARED

from bgpsim.cli import main
from bgpsim.base.errors import InputError
from bgpsim.rpki.rov import INVALID_ASN, VALID, VRP
from bgpsim.rpki.vrps import (ASPA, NO_TA, Origin, Payloads, RouterKey, format_prefix, read_csv, read_file, read_json,
                       read_payloads, read_text, write_bird2, write_csv, write_json, write_openbgpd)

EXAMPLES = SHARED / "rpki" / "vrp_format_examples"
ROUTINATOR = EXAMPLES / "routinator_test_output"  # Routinator's test/output: 8 data sets in every format
STAYRTR = EXAMPLES / "stayrtr"  # StayRTR's test inputs in rpki-client's JSON shape
SETS = ("000", "001", "010", "011", "100", "101", "110", "111")  # (origins, router keys, ASPAs) present
net = ipaddress.ip_network


def need(path):
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared RPKI data set is not here)")
    return path


def error_of(fn, *args) -> str:
    with pytest.raises(InputError) as info:
        fn(*args)
    return str(info.value)


# ---------------------------------------------------------------------------------------------
# Routinator's expected outputs


@pytest.mark.parametrize("name", SETS)
@pytest.mark.parametrize("fmt", ["json", "jsonext", "csv", "csvcompat", "csvext"])
def test_routinator_outputs_byte_for_byte(name, fmt):
    """Read each data set in each of Routinator's readable formats and write csv, bird2 and
    openbgpd: the bytes must be Routinator's. None of the three carries a time or a version, so
    nothing is left out of the comparison."""
    p = read_file(need(ROUTINATOR / f"{name}.{fmt}"))
    assert write_csv(p) == (ROUTINATOR / f"{name}.csv").read_text()
    assert write_bird2(p) == (ROUTINATOR / f"{name}.bird2").read_text()
    assert write_openbgpd(p) == (ROUTINATOR / f"{name}.openbgpd").read_text()


def test_routinator_json_content():
    p = read_file(need(ROUTINATOR / "111.json"))
    vrp = VRP(net("12.34.56.0/24"), 24, 1234)
    assert p.origins == [Origin(vrp, "N/A")] * 2  # Routinator's test feeds each payload twice; we keep both
    assert p.router_keys == [RouterKey(1234, bytes(20), bytes(64), "N/A")] * 2
    assert p.aspas == [ASPA(1234, (1, 2, 3, 4), "N/A")] * 2
    assert p.generated == datetime(1970, 1, 1, tzinfo=timezone.utc)
    ext = read_file(ROUTINATOR / "111.jsonext")
    assert (ext.origins, ext.router_keys, ext.aspas) == (p.origins, p.router_keys, p.aspas)
    for name in SETS:  # the digits of the name say which sections are there
        q = read_file(ROUTINATOR / f"{name}.json")
        assert [bool(q.origins), bool(q.router_keys), bool(q.aspas)] == [c == "1" for c in name]


def test_jsonext_trust_anchor_is_the_first_tal_of_the_sources():
    doc = {"metadata": {"generated": 1700000000, "generatedTime": "2023-11-14T22:13:20Z"},
           "roas": [{"asn": "AS64496", "prefix": "192.0.2.0/24", "maxLength": 24, "source": [
               {"type": "exception", "path": "/etc/slurm.json", "comment": "x"},
               {"type": "roa", "uri": "rsync://example.net/a.roa", "tal": "ripe",
                "validity": {"notBefore": "2023-01-01T00:00:00Z", "notAfter": "2024-01-01T00:00:00Z"},
                "chainValidity": {"notBefore": "2023-01-01T00:00:00Z", "notAfter": "2024-01-01T00:00:00Z"},
                "stale": "2023-12-01T00:00:00Z"},
               {"type": "roa", "uri": None, "tal": "arin"}]}]}
    p = read_json(json.dumps(doc), "x.json")
    assert p.origins == [Origin(VRP(net("192.0.2.0/24"), 24, 64496), "ripe")]
    doc["roas"][0]["source"][1]["type"] = "gbr"
    assert error_of(read_json, json.dumps(doc), "x.json").startswith("x.json:roas[0].source[1]: want a source of type")


# ---------------------------------------------------------------------------------------------
# rpki-client's JSON


def test_rpki_client_json_from_stayrtr():
    p = read_file(need(STAYRTR / "cmd_stayrtr_test.rpki.json"))
    assert (len(p.origins), len(p.router_keys), len(p.aspas)) == (19, 3, 2)
    assert p.generated == datetime(2023, 7, 27, 18, 56, 2, tzinfo=timezone.utc)
    assert Origin(VRP(net("2800:38::/32"), 128, 27808), "lacnic", 1827677646) in p.origins
    assert p.router_keys[0] == RouterKey(15562, bytes.fromhex("5d4250e2d81d4448d8a29efce91d29ff075ec9e2"),
                                         p.router_keys[0].spki, NO_TA)  # StayRTR's keys carry no "ta"
    assert p.router_keys[0].spki.startswith(bytes.fromhex("3059301306072a8648ce3d0201"))  # id-ecPublicKey SPKI
    # ipv4 and ipv6 list the same ASPAs in another order: one ASPA each, for both families
    assert sorted(p.aspas, key=ASPA.sort_key) == [ASPA(15562, (2914, 8283, 51088, 206238)),
                                                  ASPA(64496, (1299, 6939, 7480, 32097, 50058, 61138))]
    small = read_file(STAYRTR / "cmd_stayrtr_smalltest.rpki.json")  # "asn": 13335 and "asn": "AS9367"
    assert [o.vrp.asn for o in small.origins] == [13335, 9367]


def test_write_json_is_rpki_client_82_layout():
    """The layout of rpki-client 8.2's output-json.c (1.29), written out by hand from its format
    strings, for a set with every kind of entry, an unknown expiry and both families."""
    p = Payloads([Origin(VRP(net("2001:db8::/32"), 48, 64497), "ripe", 1700000000),
                  Origin(VRP(net("192.0.2.0/24"), 24, 64496), "arin")],
                 [RouterKey(64496, bytes(range(20)), b"\x30\x00", "ripe", 1700000001)],
                 [ASPA(64496, (64497, 64498), "N/A", 1700000002)])
    want = ("{\n\t\"metadata\": {\n"
            "\t\t\"buildtime\": \"2023-11-14T22:13:20Z\",\n\t\t\"bgpsec_pubkeys\": 1,\n\t\t\"vrps\": 2,\n"
            "\t\t\"uniquevrps\": 2,\n\t\t\"vaps\": 1,\n\t\t\"uniquevaps\": 1\n\t},\n\n"
            "\t\"roas\": [\n"
            "\t\t{ \"asn\": 64496, \"prefix\": \"192.0.2.0/24\", \"maxLength\": 24, \"ta\": \"arin\" },\n"
            "\t\t{ \"asn\": 64497, \"prefix\": \"2001:db8::/32\", \"maxLength\": 48, \"ta\": \"ripe\", \"expires\": 1700000000 }\n"
            "\t],\n\n"
            "\t\"bgpsec_keys\": [\n"
            "\t\t{ \"asn\": 64496, \"ski\": \"000102030405060708090A0B0C0D0E0F10111213\", \"pubkey\": \"MAA=\", "
            "\"ta\": \"ripe\", \"expires\": 1700000001 }\n"
            "\t],\n\n"
            "\t\"provider_authorizations\": {\n\t\t\"ipv4\": [\n"
            "\t\t\t{ \"customer_asid\": 64496, \"providers\": [64497, 64498], \"expires\": 1700000002 }\n"
            "\t\t],\n\t\t\"ipv6\": [\n"
            "\t\t\t{ \"customer_asid\": 64496, \"providers\": [64497, 64498], \"expires\": 1700000002 }\n"
            "\t\t]\n\t}\n\n}\n")
    assert write_json(p, datetime(2023, 11, 14, 22, 13, 20, tzinfo=timezone.utc)) == want
    back = read_json(want, "w.json")
    assert back.sorted().origins == p.sorted().origins and back.router_keys == p.router_keys
    assert back.aspas == [ASPA(64496, (64497, 64498), NO_TA, 1700000002)]  # rpki-client writes no TA for ASPAs
    empty = write_json(Payloads(), datetime(2023, 11, 14, tzinfo=timezone.utc))
    assert "\t\"roas\": [\n\n\t],\n" in empty and json.loads(empty)["provider_authorizations"] == {"ipv4": [], "ipv6": []}


@pytest.mark.parametrize("path", ["cmd_stayrtr_test.rpki.json", "cmd_stayrtr_smalltest.rpki.json"])
def test_json_round_trip(path):
    p = read_file(need(STAYRTR / path))
    text = write_json(p)
    back = read_json(text, "again.json")
    assert back.sorted() == p.sorted()
    assert write_json(back) == text  # the input's build time is kept, so the bytes are stable


def test_generated_time_is_the_inputs_else_given():
    p = read_file(need(STAYRTR / "cmd_stayrtr_smalltest.rpki.json"))
    assert '"buildtime": "2021-07-27T18:56:02Z"' in write_json(p)
    assert '"buildtime": "2030-01-02T03:04:05Z"' in write_json(p, datetime(2030, 1, 2, 3, 4, 5, tzinfo=timezone.utc))


def test_sorted_by_family_prefix_maxlength_asn():
    rows = ["AS5,2001:db8::/32,48,b", "AS9,10.0.0.0/8,8,a", "AS2,10.0.0.0/16,24,a", "AS1,10.0.0.0/16,24,a",
            "AS1,10.0.0.0/16,16,a", "AS1,9.0.0.0/8,8,z", "AS1,::ffff:192.0.2.0/120,128,a", "AS1,::/0,0,a"]
    p = read_csv("ASN,IP Prefix,Max Length,Trust Anchor\n" + "\n".join(rows) + "\n", "s.csv")
    assert write_csv(p).splitlines()[1:] == [
        "AS1,9.0.0.0/8,8,z", "AS9,10.0.0.0/8,8,a", "AS1,10.0.0.0/16,16,a", "AS1,10.0.0.0/16,24,a",
        "AS2,10.0.0.0/16,24,a", "AS1,::/0,0,a", "AS1,::ffff:192.0.2.0/120,128,a", "AS5,2001:db8::/32,48,b"]
    assert write_openbgpd(p).splitlines()[1:3] == ["    9.0.0.0/8 source-as 1", "    10.0.0.0/8 source-as 9"]
    assert "    10.0.0.0/16 maxlen 24 source-as 1" in write_openbgpd(p)
    assert format_prefix(net("2001:DB8:0:0:1::/80")) == "2001:db8:0:0:1::/80"  # RFC 5952, as Rust prints it


def test_vrp_table_for_route_origin_validation():
    p = read_file(need(STAYRTR / "cmd_stayrtr_test.rpki.json"))
    t = p.vrp_table()
    assert t.validate(net("1.0.4.0/24"), 38803) == VALID
    assert t.validate(net("1.0.4.0/24"), 13335) == INVALID_ASN


def test_csv_flavours_agree():
    for name in SETS:
        plain = read_file(need(ROUTINATOR / f"{name}.csv"))
        assert read_file(ROUTINATOR / f"{name}.csvcompat").origins == plain.origins
        assert read_file(ROUTINATOR / f"{name}.csvext").origins == plain.origins  # csvext has no TA: N/A
    rc = read_csv("ASN,IP Prefix,Max Length,Trust Anchor,Expires\nAS13335,1.0.0.0/24,24,apnic,1783952256\n", "rc.csv")
    assert rc.origins == [Origin(VRP(net("1.0.0.0/24"), 24, 13335), "apnic", 1783952256)]
    compat = read_csv('"ASN","IP Prefix","Max Length","Trust Anchor"\r\n"64496","192.0.2.0/24","24","ripe"\r\n', "c.csv")
    assert compat.origins == [Origin(VRP(net("192.0.2.0/24"), 24, 64496), "ripe")]  # bare ASN, CRLF


# ---------------------------------------------------------------------------------------------
# Strict readers: each fault names the file and where


RC = {"metadata": {"buildtime": "2023-07-27T18:56:02Z", "vrps": 2},
      "roas": [{"asn": 13335, "prefix": "1.0.0.0/24", "maxLength": 24, "ta": "apnic", "expires": 1627568318},
               {"asn": 9367, "prefix": "2001:200:136::/48", "maxLength": 48, "ta": "apnic", "expires": 1627575699}],
      "bgpsec_keys": [{"asn": 64496, "ski": "510F485D29A29DB7B515F9C478F8ED3CB7AA7D23", "pubkey": "MAA=",
                       "ta": "ripe", "expires": 1}],
      "provider_authorizations": {"ipv4": [{"customer_asid": 64496, "providers": [1, 2], "expires": 5}],
                                  "ipv6": [{"customer_asid": 64496, "providers": [1, 2], "expires": 5}]}}


def _set(doc, path, value):
    *head, last = path
    for k in head:
        doc = doc[k]
    if value is _DELETE:
        del doc[last]
    else:
        doc[last] = value


_DELETE = object()
RC_FAULTS = [
    (("roas", 1, "maxLength"), 129, "roas[1].maxLength", "want a maxLength from 48 to 128"),
    (("roas", 1, "maxLength"), 47, "roas[1].maxLength", "want a maxLength"),
    (("roas", 0, "maxLength"), 24.0, "roas[0].maxLength", "want a maxLength"),
    (("roas", 0, "prefix"), "1.0.0.1/24", "roas[0].prefix", "host bits set"),
    (("roas", 0, "prefix"), "1.0.0.0/255.255.255.0", "roas[0].prefix", "want a prefix"),
    (("roas", 0, "prefix"), "1.0.0.0", "roas[0].prefix", "want a prefix"),
    (("roas", 0, "prefix"), "fe80::%1/64", "roas[0].prefix", "want a prefix"),
    (("roas", 0, "asn"), 2**32, "roas[0].asn", "want an AS number"),
    (("roas", 0, "asn"), -1, "roas[0].asn", "want an AS number"),
    (("roas", 0, "asn"), True, "roas[0].asn", "want an AS number"),
    (("roas", 0, "asn"), "AS013335", "roas[0].asn", "want an AS number"),
    (("roas", 0, "asn"), _DELETE, "roas[0].asn", "missing key 'asn'"),
    (("roas", 0, "source"), "x", "roas[0].source", "unknown key 'source'"),
    (("roas", 0, "ta"), "ri,pe", "roas[0].ta", "want a trust anchor name"),
    (("roas", 0, "ta"), "", "roas[0].ta", "want a trust anchor name"),
    (("roas", 0, "expires"), -5, "roas[0].expires", "Unix time"),
    (("roas", 1), [], "roas[1]", "want an object"),
    (("roas",), {}, "roas", "want a list"),
    (("bgpsec_keys", 0, "ski"), "510F485D29A29DB7B515F9C478F8ED3CB7AA7D2", "bgpsec_keys[0].ski", "40 hex digits"),
    (("bgpsec_keys", 0, "pubkey"), "MAA", "bgpsec_keys[0].pubkey", "padded base64"),
    (("bgpsec_keys", 0, "pubkey"), "MB==", "bgpsec_keys[0].pubkey", "padded base64"),  # non-zero trailing bits
    (("provider_authorizations", "ipv6", 0, "providers"), [1, 3], "provider_authorizations.ipv4[0]", "differ"),
    (("provider_authorizations", "ipv6"), [], "provider_authorizations.ipv4[0]", "differ"),
    (("provider_authorizations", "ipv4", 0, "providers"), [1, 1], "provider_authorizations.ipv4[0].providers", "twice"),
    (("provider_authorizations", "ipv4", 0, "providers"), [64496], "provider_authorizations.ipv4[0].providers",
     "its own providers"),
    (("provider_authorizations", "ipv4", 0, "providers"), [], "provider_authorizations.ipv4[0].providers", "non-empty"),
    (("provider_authorizations", "ipv4", 0, "providers"), [1, "x"], "provider_authorizations.ipv4[0].providers[1]",
     "AS number"),
    (("provider_authorizations", "ipv4", 0, "ta"), "x", "provider_authorizations.ipv4[0].ta", "unknown key"),
    (("aspas",), [], "aspas", "both"),
    (("surprise",), 1, "surprise", "unknown key"),
    (("metadata", "buildtime"), "2023-07-27 18:56:02", "metadata.buildtime", "want a UTC time"),
]


@pytest.mark.parametrize("path,value,where,message", RC_FAULTS, ids=[f[2] + ":" + f[3] for f in RC_FAULTS])
def test_rpki_client_json_faults(path, value, where, message):
    doc = copy.deepcopy(RC)
    read_json(json.dumps(doc), "rc.json")  # the unbroken document reads
    _set(doc, path, value)
    err = error_of(read_json, json.dumps(doc), "rc.json")
    assert err.startswith(f"rc.json:{where}: ") and message in err, err


RT = {"metadata": {"generated": 0, "generatedTime": "1970-01-01T00:00:00Z"},
      "roas": [{"asn": "AS1234", "prefix": "12.34.56.0/24", "maxLength": 24, "ta": "N/A"}],
      "routerKeys": [{"asn": "AS1234", "SKI": "00" * 20, "routerPublicKey": "A" * 86, "ta": "N/A"}],
      "aspas": [{"customer": "AS1234", "providers": ["AS1", "AS2"], "ta": "N/A"}]}
RT_FAULTS = [
    (("metadata", "generated"), 1, "metadata.generated", "Unix time of generatedTime"),
    (("metadata", "generatedTime"), _DELETE, "metadata.generatedTime", "missing key 'generatedTime'"),
    (("metadata", "generatedTime"), "1970-01-01", "metadata.generatedTime", "want a UTC time"),
    (("roas", 0, "ta"), _DELETE, "roas[0].ta", "missing key 'ta'"),
    (("roas", 0, "asn"), "AS 1234", "roas[0].asn", "want an AS number"),
    (("routerKeys", 0, "routerPublicKey"), "A" * 86 + "==", "routerKeys[0].routerPublicKey", "without '=' padding"),
    (("routerKeys", 0, "routerPublicKey"), "", "routerKeys[0].routerPublicKey", "empty public key"),
    (("routerKeys", 0, "routerPublicKey"), "A+B/", "routerKeys[0].routerPublicKey", "base64url"),
    (("routerKeys", 0, "SKI"), "0x" + "00" * 19, "routerKeys[0].SKI", "40 hex digits"),
    (("aspas", 0, "providers"), ["AS1", "AS1"], "aspas[0].providers", "twice"),
    (("aspas", 0, "providers", 1), "AS1234", "aspas[0].providers", "its own providers"),
    (("aspas", 0, "source"), [], "aspas[0].ta", "missing key 'ta'"),  # json with both: 'ta' then needs 'source'
]


@pytest.mark.parametrize("path,value,where,message", RT_FAULTS, ids=[f[2] + ":" + f[3] for f in RT_FAULTS])
def test_routinator_json_faults(path, value, where, message):
    doc = copy.deepcopy(RT)
    read_json(json.dumps(doc), "rt.json")
    _set(doc, path, value)
    if path == ("aspas", 0, "source"):
        del doc["aspas"][0]["ta"]
        doc["aspas"][0]["source"] = []
        p = read_json(json.dumps(doc), "rt.json")  # jsonext with no source at all: no trust anchor
        assert p.aspas[0].ta == NO_TA
        doc["aspas"][0]["ta"] = "x"
        where, message = "aspas[0].ta", "unknown key 'ta'"
    err = error_of(read_json, json.dumps(doc), "rt.json")
    assert err.startswith(f"rt.json:{where}: ") and message in err, err


@pytest.mark.parametrize("text,where,message", [
    ('{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [}', "1:62", "bad JSON"),
    ('{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [{"asn": 1, "asn": 2}]}', "roas[0].asn", "twice"),
    ('{"metadata": {"buildtime": "2023-07-27T18:56:02Z"}, "roas": [{"asn": NaN}]}', "1:70", "NaN is not JSON"),
    pytest.param('{"roas": ' + "[" * 100000 + "]" * 100000 + "}", "1:522", "nested too deeply", id="deep"),
    ('["roas"]', None, "want a JSON object"),
    ('{"slurmVersion": 1}', None, "SLURM file"),
    ('{"metadata": {}, "roas": []}', None, "unknown JSON"),
    ("", None, "is empty: want rpki-client"),
    ("roa-set {\n}\n", 1, "OpenBGPD or BIRD"),
    ("ASN,Prefix\n", 1, "a CSV header, but not one we know"),
])
def test_json_and_format_faults(text, where, message):
    err = error_of(read_payloads, text, "in.json")
    prefix = "in.json: " if where is None else f"in.json:{where}: "
    assert err.startswith(prefix) and message in err, err


@pytest.mark.parametrize("text,line,message", [
    ("ASN,IP Prefix,Max Length,Trust Anchor\nAS1,10.0.0.0/8,8,a\nAS1,10.0.0.0/8,8\n", 3, "want 4 comma-separated"),
    ("ASN,IP Prefix,Max Length,Trust Anchor\nAS1,10.0.0.0/8,8,a\n\nAS1,10.0.0.0/8,8,a\n", 3, "want 4"),
    ("ASN,IP Prefix,Max Length,Trust Anchor\n64496,10.0.0.0/8,8,a\n", 2, "want an AS number like AS64496"),
    ("ASN,IP Prefix,Max Length,Trust Anchor\nAS4294967296,10.0.0.0/8,8,a\n", 2, "want an AS number"),
    ("ASN,IP Prefix,Max Length,Trust Anchor\nAS1,10.0.0.0/8,08,a\n", 2, "Max Length"),
    ("ASN,IP Prefix,Max Length,Trust Anchor\nAS1,10.0.0.0/8,33,a\n", 2, "want a maxLength from 8 to 32"),
    ("ASN,IP Prefix,Max Length,Trust Anchor\nAS1, 10.0.0.0/8,8,a\n", 2, "want a prefix"),
    ("ASN,IP Prefix,Max Length,Trust Anchor\nAS1,10.0.0.0/8,8,\"a\"\n", 2, "trust anchor"),
    ("ASN,IP Prefix,Max Length,Trust Anchor,Expires\nAS1,10.0.0.0/8,8,a,soon\n", 2, "Expires"),
    ('"ASN","IP Prefix","Max Length","Trust Anchor"\n"AS1",10.0.0.0/8,"8","a"\n', 2, "double quotes"),
    ("URI,ASN,IP Prefix,Max Length,Not Before,Not After\nN/A,AS1,10.0.0.0/8,8,2017-08-25,N/A\n", 2, "want a time"),
])
def test_csv_faults(text, line, message):
    err = error_of(read_payloads, text, "in.csv")
    assert err.startswith(f"in.csv:{line}: ") and message in err, err


def test_read_text_bounds_and_encoding(tmp_path):
    bad = tmp_path / "latin1.csv"
    bad.write_bytes(b"ASN,IP Prefix,Max Length,Trust Anchor\nAS1,10.0.0.0/8,8,r\xe9seau\n")
    assert error_of(read_text, bad).startswith(f"{bad}:2: not UTF-8")
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2048)
    assert "larger than" in error_of(read_text, big, 1024)
    assert "cannot read" in error_of(read_text, tmp_path / "missing.json")


def _mutants(data: bytes, rnd: random.Random, n: int):
    for _ in range(n):
        b = bytearray(data)
        op = rnd.randrange(4)
        i = rnd.randrange(len(b) + 1)
        if op == 0 and b:
            b[min(i, len(b) - 1)] = rnd.randrange(256)
        elif op == 1:
            del b[i:i + rnd.randrange(1, 20)]
        elif op == 2:
            b[i:i] = rnd.choice([b",", b"\"", b"{", b"]", b"-1", b"\n", b"AS", b"/", b":", b"\xff", b"=", b"0"])
        else:
            b = b[:i]
        yield bytes(b)


@pytest.mark.parametrize("path", [ROUTINATOR / "111.json", ROUTINATOR / "111.jsonext", ROUTINATOR / "101.csvcompat",
                                  ROUTINATOR / "101.csvext", STAYRTR / "cmd_stayrtr_test.rpki.json"],
                         ids=lambda p: p.name)
def test_readers_are_total(path, tmp_path):
    """Damaged files give a Payloads or an InputError, never another exception."""
    data = need(path).read_bytes()
    rnd = random.Random(path.name)
    for k, mutant in enumerate(_mutants(data, rnd, 400)):
        f = tmp_path / f"m{k % 3}"
        f.write_bytes(mutant)
        try:
            read_file(f)
        except InputError as e:
            assert str(e).startswith(str(f)), e


# ---------------------------------------------------------------------------------------------
# Metadata (issue 12): new releases of both tools add keys there. Strict about payloads, tolerant
# about metadata: an unknown metadata key is one warning naming the file and the JSON path.


def _with_note(doc):
    doc = copy.deepcopy(doc)
    doc["metadata"]["note"] = "a key of a later release"
    return doc


def _shared_json(path):
    return json.loads(need(path).read_text())


METADATA_DOCS = {"rpki-client": lambda: RC, "routinator": lambda: RT,
                 "rpki-client-real": lambda: _shared_json(STAYRTR / "cmd_stayrtr_test.rpki.json"),
                 "routinator-json": lambda: _shared_json(ROUTINATOR / "111.json"),
                 "routinator-jsonext": lambda: _shared_json(ROUTINATOR / "111.jsonext")}


@pytest.mark.parametrize("kind", METADATA_DOCS)
def test_unknown_metadata_key_is_one_warning(kind, capsys):
    doc = METADATA_DOCS[kind]()
    said: list[str] = []
    plain = read_json(json.dumps(doc), "vrps.json", said.append)
    assert said == []  # every key the tools write is known
    noted = read_json(json.dumps(_with_note(doc)), "vrps.json", said.append)
    assert said == ["vrps.json: metadata.note: unknown key, ignored"]
    assert (noted.origins, noted.router_keys, noted.aspas, noted.generated) == \
        (plain.origins, plain.router_keys, plain.aspas, plain.generated)
    assert capsys.readouterr().err == ""
    # by default on standard error, as the project's warnings are
    read_payloads(json.dumps(_with_note(doc)), "vrps.json")
    assert capsys.readouterr().err == "bgpsim: warning: vrps.json: metadata.note: unknown key, ignored\n"


def test_each_unknown_metadata_key_is_named():
    doc = _with_note(RT)
    doc["metadata"]["line\nbreak"] = 1
    said: list[str] = []
    read_json(json.dumps(doc), "rt.json", said.append)
    assert said == ["rt.json: metadata.note: unknown key, ignored",
                    "rt.json: metadata['line\\nbreak']: unknown key, ignored"]  # one line each, whatever the key


@pytest.mark.parametrize("kind,path,value,where,message", [
    ("rpki-client", ("metadata", "buildtime"), "2023-07-27 18:56:02", "metadata.buildtime", "want a UTC time"),
    ("routinator", ("metadata", "generated"), 1, "metadata.generated", "Unix time of generatedTime"),
    ("routinator", ("metadata", "generatedTime"), _DELETE, "metadata.generatedTime", "missing key"),
    ("rpki-client", ("surprise",), 1, "surprise", "unknown key 'surprise'"),
    ("routinator", ("surprise",), 1, "surprise", "unknown key 'surprise'"),
    ("rpki-client", ("roas", 0, "note"), 1, "roas[0].note", "unknown key 'note'"),
    ("routinator", ("roas", 0, "note"), 1, "roas[0].note", "unknown key 'note'"),
    ("rpki-client", ("bgpsec_keys", 0, "note"), 1, "bgpsec_keys[0].note", "unknown key 'note'"),
    ("routinator", ("aspas", 0, "note"), 1, "aspas[0].note", "unknown key 'note'"),
])
def test_tolerant_metadata_stays_strict_elsewhere(kind, path, value, where, message):
    # with an unknown metadata key too: the tolerance does not reach the required keys or the payloads
    doc = _with_note(METADATA_DOCS[kind]())
    _set(doc, path, value)
    err = error_of(read_json, json.dumps(doc), "vrps.json", lambda m: None)
    assert err.startswith(f"vrps.json:{where}: ") and message in err, err


def test_unknown_metadata_key_cli(tmp_path):
    import subprocess
    import sys

    for kind in ("rpki-client", "routinator"):
        plain, noted = tmp_path / f"{kind}.json", tmp_path / f"{kind}-note.json"
        plain.write_text(json.dumps(METADATA_DOCS[kind]()))
        noted.write_text(json.dumps(_with_note(METADATA_DOCS[kind]())))
        runs = [subprocess.run([sys.executable, "-m", "bgpsim", "rpki", "vrps", "--vrps", str(f), "--format", "csv"],
                               capture_output=True, text=True, timeout=120) for f in (plain, noted)]
        assert [r.returncode for r in runs] == [0, 0] and runs[0].stdout == runs[1].stdout != ""
        assert runs[0].stderr == ""
        assert runs[1].stderr == f"bgpsim: warning: {noted}: metadata.note: unknown key, ignored\n"


# ---------------------------------------------------------------------------------------------
# bgpsim rpki vrps


def cli(capsys, *args):
    code = main(["rpki", "vrps", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fmt", ["csv", "bird2", "openbgpd"])
def test_cli_writes_routinator_formats(fmt, tmp_path, capsys):
    src = need(ROUTINATOR / "111.json")
    code, out, err = cli(capsys, "--vrps", src, "--format", fmt)
    assert (code, err) == (0, "") and out == (ROUTINATOR / f"111.{fmt}").read_text()
    out_file = tmp_path / f"x.{fmt}"
    code, out, err = cli(capsys, "--vrps", ROUTINATOR / "111.jsonext", "--format", fmt, "--out", out_file)
    assert (code, out, err) == (0, "", "")
    assert out_file.read_text() == (ROUTINATOR / f"111.{fmt}").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == [out_file.name]  # no temporary file left behind


def test_cli_default_json_and_stdin(tmp_path, capsys, monkeypatch):
    import io
    import sys

    src = need(STAYRTR / "cmd_stayrtr_test.rpki.json")
    code, out, err = cli(capsys, "--vrps", src)
    assert code == 0 and out == write_json(read_file(src))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((ROUTINATOR / "101.csv").read_bytes())))
    code, out, err = cli(capsys, "--vrps", "-", "--format", "csv")
    assert code == 0 and out == (ROUTINATOR / "101.csv").read_text()


@pytest.mark.parametrize("args,message", [
    (["--vrps", "{missing}"], "--vrps: cannot read"),
    (["--vrps", "{bird}"], "unknown format (this looks like an OpenBGPD or BIRD"),
    (["--vrps", "{csv}", "--slurm", "{csv}"], "101.csv:1:1: bad JSON"),
    (["--vrps", "{csv}", "--out", "{tmp}/no/such/dir/x.json"], "x.json: no such directory"),
])
def test_cli_errors_are_one_line(args, message, tmp_path, capsys):
    need(ROUTINATOR)
    subst = {"missing": tmp_path / "missing.json", "bird": ROUTINATOR / "111.bird2", "csv": ROUTINATOR / "101.csv",
             "tmp": tmp_path}
    code, out, err = cli(capsys, *[a.format(**subst) for a in args])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("bgpsim: error: ") and message in err, err
    assert "Traceback" not in err


OLD_VRPS = "ASN,IP Prefix,Max Length,Trust Anchor\nAS64496,192.0.2.0/24,24,synthetic\n"  # an earlier output


def test_cli_failure_leaves_the_old_output(tmp_path, capsys):
    out_file = tmp_path / "vrps.json"
    out_file.write_text(OLD_VRPS)
    bad = tmp_path / "bad.slurm"
    bad.write_text('{"slurmVersion": 1, "validationOutputFilters": {"prefixFilters": [], "bgpsecFilters": []}, '
                   '"locallyAddedAssertions": {"prefixAssertions": [{"asn": 1, "prefix": "10.0.0.0/8", '
                   '"maxPrefixLength": 7}], "bgpsecAssertions": []}}')
    code, out, err = cli(capsys, "--vrps", need(ROUTINATOR / "101.csv"), "--slurm", bad, "--out", out_file)
    assert code == 2 and "locallyAddedAssertions.prefixAssertions[0].maxPrefixLength" in err
    assert out_file.read_text() == OLD_VRPS and sorted(p.name for p in tmp_path.iterdir()) == ["bad.slurm", "vrps.json"]


def test_cli_help_teaches(capsys):
    with pytest.raises(SystemExit) as info:
        main(["rpki", "vrps", "--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0
    for needle in ("examples:", "--slurm", "RFC 8416", "rpki-client", "Routinator", "csvcompat", "openbgpd",
                   "exit status"):
        assert needle in out, needle


def test_mapped_bytes_read_what_read_bytes_reads(tmp_path, monkeypatch):
    """A regular file is mapped, not copied; the same columns come of it. An empty file, standard
    input and a file over the limit go as read_bytes takes them (the same errors)."""
    import io
    import mmap

    from bgpsim.rpki.vrps import mapped_bytes, read_bytes, read_vrp_columns

    path = tmp_path / "vrps.csv"
    path.write_text("ASN,IP Prefix,Max Length,Trust Anchor\nAS64496,192.0.2.0/24,24,hand\nAS0,2001:db8::/32,48,hand\n")
    with mapped_bytes(path) as data:
        assert isinstance(data, mmap.mmap)
        mapped = read_vrp_columns(data, str(path))
    copied = read_vrp_columns(read_bytes(path), str(path))
    assert [list(c) for c in mapped] == [list(c) for c in copied]
    (tmp_path / "empty.csv").write_bytes(b"")
    with mapped_bytes(tmp_path / "empty.csv") as data:
        assert data == b""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
    with mapped_bytes("-") as data:
        assert data == path.read_bytes()
    with pytest.raises(InputError, match="larger than"):
        with mapped_bytes(path, limit=10):
            pass
    with pytest.raises(InputError, match="cannot read"):
        with mapped_bytes(tmp_path / "none.csv"):
            pass
    bad = tmp_path / "bad.csv"  # not VRPs: the message as from bytes
    bad.write_text("route 192.0.2.0/24 max 24 as 64496;\n")
    with pytest.raises(InputError, match="unknown format"):
        with mapped_bytes(bad) as data:
            read_vrp_columns(data, str(bad))


@pytest.mark.parametrize("text", ["10.0.0.0/8", "192.0.2.0/24", "0.0.0.0/0", "2001:db8::/32", "2001:db8::1/128", "::/0"])
def test_a_payload_pickles_as_numbers_to_an_equal_one(text):
    """A relying party's worker sends each ROA's VRPs as numbers (rov.VRP.__reduce__)."""
    import pickle

    from bgpsim.rpki.rov import VRP
    from bgpsim.rpki.vrps import Origin

    net = ipaddress.ip_network(text)
    for o in (Origin(VRP(net, net.max_prefixlen, 4_200_000_000), "ripe", 1_700_000_000), Origin(VRP(net, net.prefixlen, 0))):
        back = pickle.loads(pickle.dumps([o, o.vrp], protocol=5))
        assert back == [o, o.vrp] and hash(back[0]) == hash(o)
        assert type(back[0].vrp.prefix) is type(net) and str(back[0].vrp.prefix) == text
        assert back[0].sort_key() == o.sort_key()
