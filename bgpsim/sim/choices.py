"""`bgpsim run`'s work from the choices a user makes on the command line: a scenario file or a
bundled one by name, or an ad-hoc attack on a topology; then the attacker, victim, timing, weighting,
defence and its adopters, BGPsec in the loop, seed and end; where the results go, a capture, a live
feed. Each choice is checked against the others (an option the chosen engine would ignore is
refused) and named in the error when it is wrong, all before any work. `opts` is any object with
the attributes `bgpsim run`'s parser gives."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from bgpsim.base.asn import parse_asns
from bgpsim.base.console import Progress
from bgpsim.base.errors import InputError

DEFAULT_SCENARIO = "teaching-subprefix"
TIMED_ONLY = ("mrai", "until", "crypto", "signing_keys", "pcap", "pcap_ases", "publish", "pace", "publish_ases", "topic",
              "cafile")  # options about messages and time, which the converged state has not
DEFAULT_PACE = 10.0  # --pace: why, in its help


class RunJob:
    """One `bgpsim run`: the scenario, its plan on the topology, where its results go (--out,
    --pcap) and, with --publish, the broker and topics. Everything is checked when it is made:
    a refused --out or a broker address that cannot be costs no simulation."""

    def __init__(self, opts):
        from bgpsim.base import outdir

        from .plan import resolve

        self.opts = opts
        scn, where = scenario_from(opts)
        if opts.pcap_ases and not opts.pcap:
            raise InputError("--pcap-ases needs --pcap FILE")
        tap = [a for a, _ in parse_asns(opts.pcap_ases, "--pcap-ases")] if opts.pcap_ases else [] if opts.pcap else None
        peers = [a for a, _ in parse_asns(opts.publish_ases, "--publish-ases")] if opts.publish_ases else None
        self.live = None
        if opts.publish:  # the broker (and ssl, 12 ms of the class demo's start) imported only then
            from bgpsim.live.broker import DEFAULT_TOPIC, parse_url, topic_prefix
            from bgpsim.live.topics import Topics

            topic = topic_prefix(opts.topic or DEFAULT_TOPIC)
            self.live = (parse_url(opts.publish, opts.cafile, "--publish"), Topics(topic))
        else:
            for flag in ("pace", "publish_ases", "topic", "cafile"):
                if getattr(opts, flag) is not None:
                    raise InputError(f"--{flag.replace('_', '-')} needs --publish URL")
        self.out = Path(opts.out) if opts.out else Path("bgpsim-out") / scn.name
        outdir.check(self.out, "run")  # before the work: a refused --out or --pcap costs nothing
        if opts.pcap:
            outdir.check_file(opts.pcap, "pcap", "--pcap")
        self.talk = not (opts.quiet or opts.format == "json")
        self.progress = Progress(enabled=self.talk and sys.stderr.isatty())
        self.started = time.perf_counter()
        self.plan = resolve(scn, tap=tap, peers=peers, publish=self.live is not None, where=where)
        self.wall = 0.0

    def run(self):
        """Simulate (published live with --publish), write --out and --pcap; the RunResult."""
        from bgpsim.base import outdir

        from .converged import converged
        from .output import write
        from .run import simulate

        opts = self.opts
        observer = None
        if self.live:
            from bgpsim.live.simfeed import CollectorPeers

            observer = CollectorPeers(self.plan.peers)

        def work():
            try:
                run = converged(self.plan) if opts.engine == "steady" else simulate(self.plan, self.progress, observer)
            finally:
                self.progress.close()
            self.wall = time.perf_counter() - self.started
            write(run, self.out, figures=not opts.no_figures)
            if opts.pcap:
                outdir.write_file(opts.pcap, run.wiretap.capture(), "pcap", "--pcap")
                self.say(f"{run.wiretap.updates:,} UPDATEs on {len(run.wiretap.sessions)} sessions in {opts.pcap}")
            return run

        if not self.live:
            return work()
        from bgpsim.live.simfeed import publish_run

        return publish_run(work, observer, *self.live, opts.pace or DEFAULT_PACE, say=self.say)

    def say(self, text: str) -> None:
        if self.talk:
            print(f"bgpsim: {text}", file=sys.stderr, flush=True)


def scenario_from(opts) -> tuple:
    """(the scenario, each listed adopter with where it was written: to name it if it is not in the graph)."""
    from bgpsim.base.datafiles import check_input
    from bgpsim.base.prefix import parse_prefix
    from bgpsim.sim.attacks import attack
    from bgpsim.sim.scenario import DEFAULT_PREFIX, WEIGHTINGS, Scenario, find_scenario, load_scenario

    where: dict[int, str] = {}  # each listed adopter: where it was written, for errors
    if opts.engine == "steady":
        for flag in TIMED_ONLY:
            if getattr(opts, flag) not in (None, False):
                raise InputError(f"--{flag.replace('_', '-')} needs the timed engine: the steady one computes the "
                                 "converged state, with no messages or time")
    if opts.topology:
        if opts.scenario:
            raise InputError("give a scenario file or --topology, not both")
        if not opts.attack:
            raise InputError("--topology needs --attack KIND")
        prefix = parse_prefix(opts.prefix if opts.prefix else DEFAULT_PREFIX, where="--prefix")
        announced = parse_prefix(opts.attack_prefix, where="--attack-prefix") if opts.attack_prefix else None
        scn = Scenario(name=f"{opts.attack}-{Path(opts.topology).name.split('.')[0]}", topology=opts.topology,
                       prefixes=[prefix], attack=attack(opts.attack))
        scn.attack.prefix = announced
    else:
        for flag in ("attack", "prefix", "attack_prefix"):
            if getattr(opts, flag):
                raise InputError(f"--{flag.replace('_', '-')} needs --topology (a scenario file says it itself)")
        path = find_scenario(opts.scenario or DEFAULT_SCENARIO)
        scn = load_scenario(path)
    if opts.attacker is not None:
        if scn.attack is None:
            raise InputError("--attacker: the scenario has no attack")
        scn.attack.attacker = opts.attacker
    if opts.victim is not None:
        scn.victim = opts.victim
    if opts.mrai is not None:
        from dataclasses import replace
        scn.timing = replace(scn.timing, mrai=opts.mrai)
    if opts.weighting:
        scn.weighting = opts.weighting
        if opts.weighting not in WEIGHTINGS:
            if not Path(opts.weighting).exists():
                raise InputError(f"--weighting: want uniform, cone, space or a CSV file; no such file {opts.weighting!r}")
            check_input(opts.weighting, "--weighting")
    if opts.pfx2as:
        if scn.weighting != "space":
            raise InputError("--pfx2as is used only with --weighting space (the traffic of each AS by the address "
                             "space it originates)")
        scn.pfx2as = opts.pfx2as
    if scn.weighting == "space" and not scn.pfx2as:
        raise InputError("--weighting space needs --pfx2as FILE (a prefix-to-AS table)")
    if (opts.adopters or opts.adoption is not None) and not opts.policy:
        raise InputError(f"--{'adopters' if opts.adopters else 'adoption'} needs --policy NAME")
    if opts.adopters and opts.adoption is not None:
        raise InputError("give --adopters or --adoption, not both")
    if opts.policy:
        from bgpsim.sim.defences import policy_name
        from bgpsim.sim.scenario import Defence

        policy_name(opts.policy, "--policy")
        if opts.adoption is not None:
            scn.defence = Defence(policy=opts.policy, adoption=opts.adoption)
        elif not opts.adopters:
            raise InputError("--policy needs --adopters ASN,ASN,... (or @FILE) or --adoption SHARE")
        else:
            listed = parse_asns(opts.adopters, "--adopters")
            scn.defence = Defence(policy=opts.policy, adopters=[a for a, _ in listed])
            where = dict(listed)
    from bgpsim.sim.defences import SETTINGS

    for key, setting in SETTINGS.items():  # --longest, --max-prefix
        value, flag = getattr(opts, key), "--" + key.replace("_", "-")
        if value is None:
            continue
        if scn.defence is None or not setting.applies(scn.defence.policy):
            raise InputError(f"{flag} needs --policy {setting.policy.name} (or a combination with it)")
        try:
            scn.defence.settings[key] = setting.read(value)
        except ValueError as e:
            raise InputError(f"{flag}: {e}") from None
    if opts.crypto:
        if scn.defence is None or scn.defence.policy != "bgpsec":
            raise InputError("--crypto needs --policy bgpsec (or a scenario whose defence is bgpsec)")
        scn.defence.crypto = True
    if opts.signing_keys:
        if scn.defence is None or not scn.defence.crypto:
            raise InputError("--signing-keys needs --crypto")
        scn.defence.router_keys = opts.signing_keys
    if opts.seed is not None:
        scn.seed = opts.seed
    if opts.until is not None:
        scn.until = opts.until
    return scn, where
