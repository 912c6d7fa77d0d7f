"""The JSON readers: rpki-client's output (output-json.c) and Routinator's `json` and `jsonext`.

`read_json` tells the two tools apart by their metadata (rpki-client: `buildtime`; Routinator:
`generated`). rpki-client JSON is read in 8.2's shape, ASPAs as `provider_authorizations` split
into `ipv4` and `ipv6` (aspa-profile-10), and in the later one, a plain `aspas` list; ASNs as
numbers or "AS64496" (before 7.1). Routinator's `json` tags each payload with `ta`, `jsonext` with
a `source` list.

The document and its ROAs are read by the compiled core (core/json.c, core/vrps_json.c, through
rpki.vrps.columns), which hands back every other top-level value as a span of the text, read
here. Strict and total: a `Payloads`, or InputError naming the file and the JSON path
(`roas[3].maxLength`), or line:column for text that is not JSON. The one leniency is `metadata`, which new releases of both tools extend: a
key we do not know there is one warning ("vrps.json: metadata.note: unknown key, ignored") and is
otherwise ignored; the keys we read stay required and checked, and an unknown key anywhere else
(the top level, a ROA, a key, an ASPA) is an error.
"""

from __future__ import annotations

from typing import Callable

from bgpsim.base.errors import InputError, stderr_warning

from .columns import origins, read_columns
from .fields import (decode_base64, decode_base64url, is_int, parse_asn_json, parse_expires, parse_providers,
                     parse_ski_hex, parse_ta, parse_time)
from .payloads import ASPA, NO_TA, Payloads, RouterKey
from .strictjson import JSONObject, check_list, check_object, each, join, kind_of, load_json

# rpki-client's top-level keys over its versions; the ones we do not read are named here so an
# unknown key (a format we have not seen) is still an error.
_RPKI_CLIENT_KEYS = ("metadata", "roas", "bgpsec_keys", "provider_authorizations", "aspas")
_RPKI_CLIENT_IGNORED = ("nonfunc_cas", "signedprefixlists")
_ROUTINATOR_KEYS = ("metadata", "roas", "routerKeys", "aspas")
# The metadata keys each tool has written (rpki-client: output-json.c 1.13 of 2020 to 1.57 of 2025, and
# StayRTR's rtrdump, which writes the same shape; Routinator: json and jsonext). Only the time is read;
# another key is a warning, not an error: new releases add counters there.
_RPKI_CLIENT_METADATA = frozenset((
    "buildmachine", "buildtime", "elapsedtime", "usertime", "systemtime",
    "ccr_mfts_hash", "ccr_vrps_hash", "ccr_vaps_hash", "ccr_brks_hash", "ccr_tas_hash",
    "roas", "failedroas", "invalidroas", "spls", "failedspls", "invalidspls", "aspas", "failedaspas", "invalidaspas",
    "bgpsec_router_keys", "invalidbgpsec_router_keys", "bgpsec_pubkeys",
    "certificates", "failcertificates", "invalidcertificates", "nonfunctionalcas", "taks", "tals", "invalidtals",
    "talfiles", "manifests", "failedmanifests", "stalemanifests", "crls", "gbrs", "repositories",
    "vrps", "uniquevrps", "vsps", "uniquevsps", "vaps", "uniquevaps",
    "cachedir_new_files", "cachedir_del_files", "cachedir_del_dirs", "cachedir_superfluous_files",
    "cachedir_del_superfluous_files",
    "generated", "sessionid", "serial",  # StayRTR
    "rejected",  # ours: `bgpsim rpki validate` counts the objects it rejected
))
_ROUTINATOR_METADATA = frozenset(("generated", "generatedTime"))

Warn = Callable[[str], None]  # where a warning goes, one message a call


def read_json(text: str, source: str | None = None, warn: Warn | None = None) -> Payloads:
    """rpki-client's or Routinator's JSON, told apart by the metadata; warnings (unknown metadata
    keys) go to `warn` (default: standard error)."""
    cols, out = json_columns(text.encode(), source, warn)
    out.origins = origins(cols)
    return out


def json_columns(data: bytes, source: str | None = None, warn: Warn | None = None) -> tuple[dict, Payloads]:
    """The route origins as the core's columns (rpki.vrps.columns), and the rest (router keys,
    ASPAs, the time) as payloads, with no origins: a large file without an object per VRP."""
    cols = read_columns(data, source)
    doc, tool, generated = check_document(data, cols, source, warn)
    out = Payloads(generated=generated)
    (_read_rpki_client if tool == "rpki-client" else _read_routinator)(doc, out, source)
    return cols, out


def check_document(data: bytes, cols: dict, source, warn: Warn | None) -> tuple[JSONObject, str, object]:
    """What the core (rpki.vrps.columns) leaves to check in a JSON file `data` it read into `cols`:
    an object at the top, which tool wrote it, its top-level keys, its metadata, and the keys of
    its ROAs by that tool's rules. Gives (the top level, each value loaded but the ROAs', which
    stand as an empty list; 'rpki-client' or 'routinator'; the time the metadata gives)."""
    top = JSONObject()
    top.duplicate = None
    for key, start, end, duplicate, read in cols["spans"]:
        if duplicate and top.duplicate is None:
            top.duplicate = key
        top[key] = [] if read else load_json(data[start:end], source)
    if not cols["spans"]:
        start, end = cols["roas"]["top"]
        if data[start:start + 1] != b"{":
            raise InputError(f"want a JSON object at the top, got {kind_of(load_json(data[start:end], source))}",
                             source)
    if "slurmVersion" in top:
        raise InputError("this is a SLURM file (RFC 8416); give it with --slurm", source)
    meta = top.get("metadata")
    warn = warn or stderr_warning
    if isinstance(meta, JSONObject) and "buildtime" in meta:
        check_object(top, "", source, optional=_RPKI_CLIENT_KEYS + _RPKI_CLIENT_IGNORED, what="rpki-client JSON")
        meta = _check_metadata(top["metadata"], source, ("buildtime",), _RPKI_CLIENT_METADATA, warn)
        tool, generated = "rpki-client", parse_time(meta["buildtime"], source, "metadata.buildtime")
    elif isinstance(meta, JSONObject) and "generated" in meta:
        check_object(top, "", source, required=("metadata",), optional=_ROUTINATOR_KEYS, what="Routinator JSON")
        meta = _check_metadata(top["metadata"], source, ("generated", "generatedTime"), _ROUTINATOR_METADATA, warn)
        generated = parse_time(meta["generatedTime"], source, "metadata.generatedTime")
        if not is_int(meta["generated"]) or meta["generated"] != int(generated.timestamp()):
            raise InputError(f"want the Unix time of generatedTime ({int(generated.timestamp())}), got "
                             f"{meta['generated']!r}", source, "metadata.generated")
        tool = "routinator"
    else:
        raise InputError("unknown JSON: want rpki-client's (metadata.buildtime) or Routinator's (metadata.generated) "
                         f"VRP output; the top-level keys are {', '.join(map(repr, top)) or 'none'}", source)
    check_list(top.get("roas", []), "roas", source)
    _check_roa_keys(cols["roas"], tool, source)
    return top, tool, generated


def _check_roa_keys(found: dict, tool: str, source) -> None:
    """The ROAs' keys by the rules of the tool that wrote them: rpki-client's may have `expires` and
    no `source`; Routinator's json has `ta`, its jsonext `source` instead, neither `expires`. The
    core noted the first ROA that breaks each rule (found: index or -1)."""
    if tool == "rpki-client":
        faults = [(found["with_source"], "source", "unknown key 'source'; want asn, expires, maxLength, prefix, ta")]
    else:
        faults = [(found["with_expires"], "expires", "unknown key 'expires'; want asn, maxLength, prefix, ta"),
                  (found["with_ta_and_source"], "ta", "unknown key 'ta'; want asn, maxLength, prefix, source"),
                  (found["without_ta_or_source"], "ta", "missing key 'ta'")]
    faults = [f for f in faults if f[0] >= 0]
    if faults:
        i, key, message = min(faults)
        raise InputError(message, source, f"roas[{i}].{key}")


def _check_metadata(value: object, source, required: tuple, known: frozenset, warn: Warn) -> JSONObject:
    """The `metadata` object: each key of `required` there (the caller checks their values), no key
    twice; a key outside `known` is one warning naming the file and its JSON path, and is ignored."""
    if not isinstance(value, JSONObject) or value.duplicate is not None:
        check_object(value, "metadata", source)  # raises: not an object, or a key twice
    for k in required:
        if k not in value:
            raise InputError(f"missing key {k!r}", source, join("metadata", k))
    if not value.keys() <= known:
        for k in value:
            if k not in known:
                where = join("metadata", k) if k.isprintable() and k[:1] != "[" else f"metadata[{k!r}]"
                warn(f"{source}: {where}: unknown key, ignored" if source else f"{where}: unknown key, ignored")
    return value


def _read_rpki_client(doc: JSONObject, out: Payloads, source) -> None:
    def key(e):
        check_object(e, "", source, required=("asn", "ski", "pubkey"), optional=("ta", "expires"))
        return RouterKey(parse_asn_json(e["asn"], source, "asn"), parse_ski_hex(e["ski"], source, "ski"),
                         decode_base64(e["pubkey"], "a public key", source, "pubkey"), parse_ta(e.get("ta", NO_TA), source, "ta"),
                         parse_expires(e["expires"], source, "expires") if "expires" in e else None)

    out.router_keys = each(doc.get("bgpsec_keys", []), "bgpsec_keys", source, key)
    if "provider_authorizations" in doc and "aspas" in doc:
        raise InputError("both 'provider_authorizations' (rpki-client 8.0-8.4) and 'aspas' (later); want one",
                         source, "aspas")
    if "aspas" in doc:
        out.aspas = each(doc["aspas"], "aspas", source, lambda e: _rpki_client_aspa(e, source))
    elif "provider_authorizations" in doc:
        out.aspas = _merge_families(doc["provider_authorizations"], source)


def _rpki_client_aspa(e, source) -> ASPA:
    check_object(e, "", source, required=("customer_asid", "providers"), optional=("expires",))
    customer = parse_asn_json(e["customer_asid"], source, "customer_asid")
    return ASPA(customer, parse_providers(e["providers"], customer, source, "providers", parse_asn_json), NO_TA,
                parse_expires(e["expires"], source, "expires") if "expires" in e else None)


def _merge_families(pa, source) -> list[ASPA]:
    """rpki-client 8.0-8.4 list ASPAs per address family (aspa-profile-10 had an AFI). We hold
    ASPAs without one, so the two lists must describe the same ASPAs; they are merged, keeping the
    earlier expiry of the two."""
    check_object(pa, "provider_authorizations", source, optional=("ipv4", "ipv6"))
    fams = {}
    for fam in ("ipv4", "ipv6"):
        path = f"provider_authorizations.{fam}"
        seen = {}
        for i, a in enumerate(each(pa.get(fam, []), path, source, lambda e: _rpki_client_aspa(e, source))):
            if a.customer in seen:
                raise InputError(f"customer AS{a.customer} appears twice in {fam} (first at [{seen[a.customer][0]}])",
                                 source, f"{path}[{i}]")
            seen[a.customer] = (i, a)
        fams[fam] = seen
    out = []
    v4, v6 = fams["ipv4"], fams["ipv6"]
    for customer in sorted(set(v4) | set(v6)):
        if customer not in v4 or customer not in v6 or v4[customer][1].providers != v6[customer][1].providers:
            fam, (i, _) = ("ipv4", v4[customer]) if customer in v4 else ("ipv6", v6[customer])
            raise InputError(f"AS{customer}'s providers differ between ipv4 and ipv6; per-family ASPAs "
                             "(aspa-profile-10's AFI) cannot be represented, only ASPAs for both families",
                             source, f"provider_authorizations.{fam}[{i}]")
        a, b = v4[customer][1], v6[customer][1]
        exp = [x for x in (a.expires, b.expires) if x is not None]
        out.append(ASPA(customer, a.providers, a.ta, min(exp) if exp else None))
    return out


_SOURCE_KEYS = {"roa": ("type", "uri", "tal", "validity", "chainValidity", "stale"),
                "cer": ("type", "uri", "tal", "validity", "chainValidity", "stale"),
                "aspa": ("type", "uri", "tal", "validity", "chainValidity", "stale"),
                "exception": ("type", "path", "comment")}


def _read_routinator(doc: JSONObject, out: Payloads, source) -> None:
    def source_tal(s):
        t = s.get("type") if isinstance(s, JSONObject) else None
        if t not in _SOURCE_KEYS:
            raise InputError(f"want a source of type {', '.join(_SOURCE_KEYS)}, got {t!r}", source, None)
        check_object(s, "", source, required=("type",), optional=_SOURCE_KEYS[t])
        return parse_ta(s["tal"], source, "tal") if "tal" in s else None

    def tagged(e, keys):
        """json has 'ta'; jsonext has 'source', a list whose first 'tal' names the trust anchor."""
        if isinstance(e, JSONObject) and "source" in e:
            check_object(e, "", source, required=keys + ("source",))
            tals = [t for t in each(e["source"], "source", source, source_tal) if t is not None]
            return tals[0] if tals else NO_TA
        check_object(e, "", source, required=keys + ("ta",))
        return parse_ta(e["ta"], source, "ta")

    def key(e):
        ta = tagged(e, ("asn", "SKI", "routerPublicKey"))
        spki = decode_base64url(e["routerPublicKey"], "a public key", source, "routerPublicKey")
        if not spki:
            raise InputError("empty public key", source, "routerPublicKey")
        return RouterKey(parse_asn_json(e["asn"], source, "asn"), parse_ski_hex(e["SKI"], source, "SKI"), spki, ta)

    def aspa(e):
        ta = tagged(e, ("customer", "providers"))
        customer = parse_asn_json(e["customer"], source, "customer")
        return ASPA(customer, parse_providers(e["providers"], customer, source, "providers", parse_asn_json), ta)

    out.router_keys = each(doc.get("routerKeys", []), "routerKeys", source, key)
    out.aspas = each(doc.get("aspas", []), "aspas", source, aspa)
