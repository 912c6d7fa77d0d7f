"""`bgpsim validate`: which routes of a real dump are RPKI-invalid, which paths break ASPA, and which
announcements look like hijacks or leaks.

- `check`    one pass over the routes: RFC 6811 status, ASPA path verification, findings
- `findings` the findings: MOAS, sub-prefix origin conflicts, bogons, loops, private ASNs, leaks
- `load`     the VRPs, read in a second process while the dumps are read
- `output`   summary.json, routes.csv, findings.json and report.html
- `cli`      the command
"""
