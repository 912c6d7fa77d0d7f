"""The report's BGPsec section, for runs with real signatures (`crypto`): what the signatures said.

For each AS, its final route hop by hop, from the origin: a hop whose signature was checked and held
(✓), the one that failed (✗), those nobody checked because a later one already failed (·), and none
at all where the UPDATE came unsigned. Above the table, in words, why the attacker's announcement
failed where it reached an adopter signed: each reason with what it means.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from .style import count, plural

if TYPE_CHECKING:
    from bgpsim.sim.result import RunResult, SignedRoute

MAX_ROWS = 200

# what each verdict means for a student (RFC 8205 section 5)
MEANING = {
    "no-key": "no router key is registered for that AS with the key identifier the signature names: the "
              "attacker has no router certificate for the AS it signs for (or none at all)",
    "bad-signature": "the registered key of that AS does not verify the signature: nobody can sign in another "
                     "AS's name without its private key, and a signature made for another receiver (a replay) "
                     "covers other bytes",
    "malformed": "the BGPsec_PATH attribute breaks the format of RFC 8205 section 3",
    "peer-as-mismatch": "the most recent AS in the path is not the neighbour that sent it",
    "pcount-zero": "the most recent AS claims to be invisible (pCount 0), which only route servers may do",
    "confed-segment": "a segment claims to come from inside a confederation the receiver is not part of",
    "unsupported-suite": "the signatures use an algorithm the receiver does not support, so the route counts as unsigned",
}


def _hops(r: SignedRoute) -> str:
    """The Secure_Path from the origin, each AS marked as its signature fared."""
    if not r.signed:
        return ""
    n = len(r.signed)
    out = []
    for k, asn in enumerate(reversed(r.signed), 1):  # k: hop counted from the origin
        if r.state == "valid" or (r.hop is not None and k > r.hop):
            mark, cls = "✓", "ok"
        elif r.hop == k:
            mark, cls = "✗", "bad"
        else:
            mark, cls = "·", "unchecked"
        out.append(f'<span class="hop {cls}" title="hop {k} of {n}">{asn}{mark}</span>')
    return " ".join(out)


def attacker_text(run: RunResult) -> str:
    """Why the attacker's announcement failed, in words (empty without an attacker or a signed one)."""
    if run.attacker is None or not run.signed_routes:
        return ""
    seen = [r for r in run.signed_routes if run.attacker in r.signed and r.state not in ("valid", "")]
    if not seen:
        held = [r for r in run.signed_routes if run.attacker in r.signed and r.state == "valid"]
        if held:
            return (f"{plural(len(held), 'adopter holds', 'adopters hold')} a valid signed route through the attacker: "
                    f"BGPsec checks who signed a path, not whether the origin may announce the prefix (that is ROV's "
                    f"job).")
        return "No adopter received the attacker's announcement signed: where it arrived, it came unsigned."
    reasons = Counter(r.reason for r in seen)
    parts = [f"at {plural(n, 'AS', 'ASes')} the verdict was {r}: {MEANING.get(r, '')}"
             for r, n in reasons.most_common()]
    example = seen[0]
    return (f"The attacker's announcement reached {plural(len(seen), 'adopter')} signed, and "
            + ("it did not find it valid. " if len(seen) == 1 else "none found it valid. ")
            + "; ".join(parts) + f". For example, AS{example.asn}: {example.detail}.")


def bgpsec_html(run: RunResult, e) -> str:
    """The section's HTML (empty when the run had no real signatures); `e` escapes text."""
    rows = run.signed_routes
    if rows is None:
        return ""
    states = Counter(r.state for r in rows if r.adopts and r.state not in ("", "origin"))
    c = run.crypto
    lines = ['<style>.hop.ok { color: #1a7f37; } .hop.bad { color: #cf222e; font-weight: 700; } '
             '.hop.unchecked { color: #8c959f; }</style>\n<h2>BGPsec: what the signatures said</h2>\n',
             f'<p>Every adopter signed the UPDATEs it sent to other adopters and verified those it received: '
             f'{plural(c.signatures, "signature")} made, {count(c.verified)} verified, {plural(c.reused, "check")} '
             f'answered from an identical earlier one. Final routes of the adopters: '
             + e(", ".join(f"{count(n)} {s}" for s, n in sorted(states.items()))) + ".</p>\n"]
    why = attacker_text(run)
    if why:
        lines.append(f'<p class="summary">{e(why)}</p>\n')
    shown = [r for r in rows if r.adopts][:MAX_ROWS]
    lines.append('<p class="note">Each route from its origin: ✓ a signature that verified, ✗ the one that failed, '
                 '· not checked (a later one had already failed). ' + (
                     f"The first {plural(len(shown), 'adopter')} by AS number"
                     if len(shown) < sum(r.adopts for r in rows) else "The adopters")
                 + "; <code>bgpsec.csv</code> lists every AS."
                 + '</p>\n<div class="table-wrap">\n<table class="ases">\n<thead><tr><th>ASN</th><th>Verdict</th>'
                 '<th>Signed path, from the origin</th><th>Why</th></tr></thead>\n<tbody>\n')
    for r in shown:
        verdict = r.state + (f": {r.reason}" if r.reason else "")
        lines.append(f'<tr><td class="asn">AS{e(r.asn)}</td><td>{e(verdict)}</td><td class="path">{_hops(r)}</td>'
                     f'<td>{e(r.detail)}</td></tr>\n')
    lines.append("</tbody>\n</table>\n</div>\n")
    return "".join(lines)
