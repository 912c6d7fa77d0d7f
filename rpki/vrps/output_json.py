"""Writing payloads as rpki-client 8.2's JSON (output-json.c 1.29, December 2022), byte for byte in
its layout: tab-indented `metadata`, `roas`, `bgpsec_keys`, and ASPAs as `provider_authorizations`
split into `ipv4` and `ipv6` (8.2 followed aspa-profile-10, where an ASPA was per address family;
an ASPA without one is written in both lists)."""

from __future__ import annotations

from datetime import datetime, timezone

from .payloads import TIME_FORMAT, Payloads, format_prefix


def write_json(p: Payloads, generated: datetime | None = None) -> str:
    """rpki-client 8.2's JSON (output-json.c 1.29), byte for byte in its layout: tab indentation,
    one line per entry, the sections `roas`, `bgpsec_keys` and `provider_authorizations`.

    What we cannot know is left out rather than invented: the metadata holds `buildtime`
    (`generated`, else the input's time, else now) and the counts of what is written
    (`bgpsec_pubkeys`, `vrps`, `uniquevrps`, `vaps`, `uniquevaps`), not rpki-client's statistics
    about repositories and objects; an entry's `expires` is written when it is known (read from
    rpki-client input), and omitted otherwise (Routinator or CSV input, SLURM assertions);
    rpki-client writes no trust anchor for ASPAs, nor do we."""
    p = p.sorted()
    when = generated or p.generated or datetime.now(timezone.utc)
    when = when.astimezone(timezone.utc)

    def exp(x):
        return "" if x.expires is None else f", \"expires\": {x.expires}"

    meta = [f"\"buildtime\": \"{when.strftime(TIME_FORMAT)}\"",
            f"\"bgpsec_pubkeys\": {len(p.router_keys)}",
            f"\"vrps\": {len(p.origins)}",
            f"\"uniquevrps\": {len({o.vrp for o in p.origins})}",
            f"\"vaps\": {len(p.aspas)}",
            f"\"uniquevaps\": {len({a.customer for a in p.aspas})}"]
    roas = [f"\t\t{{ \"asn\": {o.vrp.asn}, \"prefix\": \"{format_prefix(o.vrp.prefix)}\", "
            f"\"maxLength\": {o.vrp.max_length}, \"ta\": \"{o.ta}\"{exp(o)} }}" for o in p.origins]
    keys = [f"\t\t{{ \"asn\": {k.asn}, \"ski\": \"{k.ski_hex}\", \"pubkey\": \"{k.spki_b64}\", "
            f"\"ta\": \"{k.ta}\"{exp(k)} }}" for k in p.router_keys]
    vaps = [f"\t\t\t{{ \"customer_asid\": {a.customer}, \"providers\": [{', '.join(map(str, a.providers))}]{exp(a)} }}"
            for a in p.aspas]
    return ("{\n\t\"metadata\": {\n" + ",\n".join(f"\t\t{m}" for m in meta) + "\n\t},\n\n"
            "\t\"roas\": [\n" + ",\n".join(roas) + "\n\t],\n\n"
            "\t\"bgpsec_keys\": [\n" + ",\n".join(keys) + "\n\t],\n\n"
            "\t\"provider_authorizations\": {\n\t\t\"ipv4\": [\n" + ",\n".join(vaps) +
            "\n\t\t],\n\t\t\"ipv6\": [\n" + ",\n".join(vaps) + "\n\t\t]\n\t}\n"
            "\n}\n")
