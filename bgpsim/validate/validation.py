"""What `bgpsim validate` and `bgpsim monitor` check routes against, built once from the options they
share: the VRPs (RFC 6811, with RFC 8416 SLURM files), the ASPAs or the CAIDA relationships standing
in for them, and the BGPsec router keys (RFC 8205) with the receiving AS where the input does not say.
Both commands get their Checker, routes.csv's header and summary.json from here, so a dump validated
and the same dump monitored give the same routes.csv; `validate`'s whole run over dump files is
`Validation.run`.

Nothing here imports numpy or the checks until a Checker is asked for: a big VRP file is read on a
thread meanwhile (load.Loading), and the Checker takes the table when it comes.
"""

from __future__ import annotations

from bgpsim.base.errors import InputError, stderr_warning

from . import load

MAX_SCENARIOS = 10  # conflicts of each kind written as scenarios to replay

def header(bgpsec: bool) -> str:
    """routes.csv's first line: the columns of every route, and the BGPsec ones with router keys."""
    from .check import BGPSEC_COLUMNS, COLUMNS

    return ",".join(COLUMNS + (BGPSEC_COLUMNS if bgpsec else ())) + "\n"


class Validation:
    def __init__(self, vrps, slurm=None, aspa=None, relationships=None, router_keys=None, target_as=None,
                 later: bool = False, peer_roles=None, collector_as=None):
        """`vrps`: a VRP file, or a VRPTable; `later`: a big file (load.big) is read on a thread while
        the work starts (load.Loading). The router keys are read first: a fault in them costs no VRP load."""
        self.bgpsec = _verdicts(router_keys, target_as)
        if not isinstance(vrps, str):  # a VRPTable already made (the monitor's, which it keeps current)
            self.vrps = vrps
        elif slurm:
            self.vrps = load.with_slurm(vrps, slurm)
        elif later and load.big(vrps):
            self.vrps = load.Loading(vrps)
        else:
            self.vrps = load.load_vrps(vrps)
        self.aspa, self.topo = load.path_checks(aspa, relationships)
        self.relationships = relationships
        from .roles import PeerRoles, named_roles

        if collector_as is not None and self.topo is None:
            raise InputError("--collector-as: the peers' roles come from --relationships, which is not given")
        self.roles = PeerRoles(named_roles(peer_roles), self.topo, collector_as)

    @classmethod
    def from_args(cls, args, later: bool = False, vrps=None) -> Validation:
        """`vrps`: a VRPTable to use instead of reading args.vrps (and its SLURM files)."""
        return cls(args.vrps if vrps is None else vrps, args.slurm if vrps is None else None, args.aspa,
                   args.relationships, args.router_keys, getattr(args, "target_as", None), later, args.peer_role,
                   args.collector_as)

    @property
    def header(self) -> str:
        return header(self.bgpsec is not None)

    def checker(self, write):
        """A Checker writing routes.csv's lines to `write`."""
        from .check import Checker

        return Checker(self.vrps, write, aspa=self.aspa, topo=self.topo, bgpsec=self.bgpsec, roles=self.roles)

    def summary(self, checker, findings, sources: list[str]) -> dict:
        """summary.json's document for what `checker` saw; BGPsec's routes not valid become findings of
        their own kind."""
        from . import output

        info = None
        if self.bgpsec is not None:
            from .bgpsec import NOT_VALID

            findings.by_kind[NOT_VALID] = checker.tally.bgpsec.findings()
            info = (len(self.bgpsec.verifier.keys), self.bgpsec.target_as)
        return output.summary(checker.tally, findings, sources, len(checker.vrps),
                              len(self.aspa) if self.aspa is not None else None, info)


    def run(self, files: list, out, progress):
        """Every route of the dump `files`, written to `out` (an output of `bgpsim validate`, appearing
        whole or not at all): routes.csv, summary.json, findings.json, report.html and, with
        relationships, scenarios/*.toml. `progress(routes)` now and then. (summary.json's document,
        the findings.)"""
        from bgpsim.base.outdir import staged, write_atomic, write_pieces

        with staged(out, "validate") as d:
            from . import output
            from .reading import check_files

            with open(d / "routes.csv", "wb") as fh:
                fh.write(self.header.encode())
                checker = self.checker(lambda lines: write_pieces(fh, lines))
                findings = check_files(checker, files, progress=progress)
            doc = self.summary(checker, findings, [str(f) for f in files])
            for name, text in self._scenarios(findings):
                write_atomic(d / "scenarios" / f"{name}.toml", text)
            write_atomic(d / "summary.json", output.summary_json(doc))
            write_atomic(d / "findings.json", output.findings_json(findings))
            write_atomic(d / "report.html", output.report_html(doc))
        return doc, findings

    def _scenarios(self, findings):
        """With relationships: the first MAX_SCENARIOS conflicts of each kind as scenarios for `bgpsim
        run` on that graph, (name, TOML); each finding made one names its file."""
        if self.topo is None:
            return
        from pathlib import Path

        from .findings import scenario_toml

        graph = str(Path(self.relationships).resolve())
        for kind in ("moas", "subprefix"):
            made = 0
            for f in findings.by_kind[kind]:
                if made >= MAX_SCENARIOS:
                    break
                name = f"{kind}-{made + 1}"
                text = scenario_toml(f, graph, self.topo, name)
                if text is not None:
                    f["scenario"] = f"scenarios/{name}.toml"
                    made += 1
                    yield name, text


def _verdicts(router_keys, target_as):
    """The BGPsec verdicts (bgpsim.validate.bgpsec.RouteVerdicts) with router keys, else None."""
    if not router_keys:
        if target_as is not None:
            raise InputError("--target-as: want --router-keys too (the keys that verify the routes)")
        return None
    from bgpsim.rpki.bgpsec.keys import RouterKeys
    from bgpsim.rpki.bgpsec.verify import Verifier

    from .bgpsec import RouteVerdicts

    keys = RouterKeys.load(router_keys)
    if not len(keys):
        stderr_warning(f"--router-keys: no router key in {', '.join(router_keys)}: every signed route "
                       "will be not-valid (no-key)")
    return RouteVerdicts(Verifier(keys), target_as)
