"""`bgpsim validate`: which routes of a real dump are RPKI-invalid, which paths break ASPA, and which
announcements look like hijacks or leaks.

- `check`     one pass over the routes: RFC 6811 status, ASPA path verification, findings
- `reading`   the pass's threads: the dumps read on one, the batches checked on two more, in order
- `findings`  the findings: MOAS, sub-prefix origin conflicts, bogons, loops, private ASNs, leaks
- `paths`     the path findings: loops, private and bogon ASNs, leaks
- `conflicts` the MOAS and sub-prefix conflicts, by sorting the distinct (prefix, origin) rows
- `bogons`    special-purpose prefixes and AS numbers
- `rows`      the text of routes.csv, made by arrays
- `load`      the VRPs, a big file read on a thread while the dumps are read
- `output`    summary.json, findings.json and report.html
The command itself is bgpsim.commands.validate.
"""
