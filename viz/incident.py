"""An incident's part of the report: what happened (date, sources, what the model leaves out) and
the table of what each defence would have done, beside no defence at all."""

from __future__ import annotations

from typing import Sequence

from .story import POLICY_WORDS
from .style import escape as e, pct

# a defence's name in the table, and in one line what it checks. ASPA, BGPsec and path-end check the
# path, not the origin: their rows say whether ROV is in (rov+...) or not (...-alone).
DEFENCE_WORDS = {
    "rov": "rov: ROV, drop routes whose origin the RPKI says is wrong (RFC 6811)",
    "rov+aspa": "rov+aspa: ROV, and ASPA: drop paths that break the providers the ASes registered",
    "aspa-alone": "aspa-alone: ASPA without ROV: drop paths that break the providers the ASes registered; "
                  "the origin is not checked",
    "rov+bgpsec": "rov+bgpsec: ROV, and BGPsec: prefer paths signed hop by hop (RFC 8205)",
    "bgpsec-alone": "bgpsec-alone: BGPsec without ROV: prefer paths signed hop by hop; it drops nothing, "
                    "and the origin is not checked",
    "rov+path-end": "rov+path-end: ROV, and path-end: drop paths whose last hop the origin did not register",
    "path-end-alone": "path-end-alone: path-end without ROV: drop paths whose last hop the origin did not "
                      "register; the origin is not checked",
    "otc": "otc: drop routes leaked against the Only-to-Customer mark (RFC 9234)",
    "peerlock-lite": "peerlock-lite: drop tier-1 ASes in paths from customers",
    "maxlen": "maxlen: drop IPv4 longer than /24, IPv6 longer than /48",
    "prefix-list": "prefix-list: customers may send only their cone's registered prefixes",
    "max-prefix": "max-prefix: close a session that sends far more prefixes than usual",
}


def words(name: str) -> str:
    """A row's name and, in one line, what it checks: from DEFENCE_WORDS, else the story's sentence for
    the policy (a `rov+` label names a policy that includes ROV)."""
    return DEFENCE_WORDS.get(name) or f"{name}: {POLICY_WORDS[name.removeprefix('rov+')]}"


ALONE_NOTE = ("ASPA, BGPsec and path-end check the path, not its origin, and are meant to run beside ROV, as "
              "BGPy models them: the rov+ rows. The -alone rows are each mechanism without ROV, which does not "
              "check that an AS announcing a prefix may originate it.")


def incident_html(incident, rows: Sequence, graph: str, weighting: str) -> str:
    """The incident's facts and its counterfactual table (rows of bgpsim.sim.incident.Counterfactual);
    `graph`: the topology's name."""
    out = [f'<h2>The incident: {e(incident.title)}, {e(incident.date)}</h2>\n']
    if incident.model:
        out.append(f'<p>{e(incident.model)}</p>\n')
    out.append(f'<p class="note">Replayed on {e(graph)}: today\'s Internet graph, not the one of '
               f'{e(incident.date[:4])}, so the ASes and links around the attacker and the victim differ from '
               f'those of the day.</p>\n')
    out.append('<p>Sources:</p>\n<ol class="sources">\n'
               + "".join(f"  <li>{e(s)}</li>\n" for s in incident.sources) + "</ol>\n")
    if not rows:
        out.append("<p>No routing-security defence applies: nobody attacked; the routes were withdrawn by "
                   "their owner.</p>\n")
        return "".join(out)
    base = rows[0]
    n = base.trials
    out.append("<h2>What each defence would have done</h2>\n")
    out.append('<p class="note">The same attack on the converged-state engine (where routing settles), '
               'without a defence and with each one deployed by half of the ASes (drawn at random, '
               'seeded; the victim among them) and by every AS'
               + (f'; averaged over {n} victims of the incident' if n > 1 else "")
               + f'. Traffic is weighted by {e(weighting)}.</p>\n')
    head = ("<tr><th>defence</th><th>ASes reaching the attacker<br>half deploy</th><th>traffic diverted<br>half deploy</th>"
            "<th>ASes reaching the attacker<br>all deploy</th><th>traffic diverted<br>all deploy</th></tr>\n")
    body = [f'<tr class="baseline"><td>none</td><td>{pct(base.attacker)}</td><td>{pct(base.diverted)}</td>'
            f'<td>{pct(base.attacker)}</td><td>{pct(base.diverted)}</td></tr>\n']
    names = list(dict.fromkeys(r.defence for r in rows[1:]))
    for name in names:
        half, full = (r for r in rows[1:] if r.defence == name)
        body.append(f'<tr><td title="{e(words(name))}">{e(name)}</td>'
                    f'<td>{pct(half.attacker)}</td><td>{pct(half.diverted)}</td>'
                    f'<td>{pct(full.attacker)}</td><td>{pct(full.diverted)}</td></tr>\n')
    out.append('<table class="whatif">\n<thead>' + head + "</thead>\n<tbody>\n" + "".join(body) + "</tbody>\n</table>\n")
    out.append('<ul class="note">\n' + "".join(f"  <li>{e(words(name))}</li>\n" for name in names) + "</ul>\n")
    if any(name.endswith("-alone") for name in names):
        out.append(f'<p class="note">{e(ALONE_NOTE)}</p>\n')
    return "".join(out)
