"""A scenario from the choices a user makes on the command line (`bgpsim run`): a scenario file or a
bundled one by name, or an ad-hoc attack on a topology; then the attacker, victim, timing, weighting,
defence and its adopters, BGPsec in the loop, seed and end. Each choice is checked against the others
(an option the chosen engine would ignore is refused) and named in the error when it is wrong.
`opts` is any object with the attributes `bgpsim run`'s parser gives."""

from __future__ import annotations

from pathlib import Path

from bgpsim.base.asn import parse_asn
from bgpsim.base.errors import InputError

DEFAULT_SCENARIO = "teaching-subprefix"
TIMED_ONLY = ("mrai", "until", "crypto", "signing_keys", "pcap", "pcap_ases", "publish", "pace", "publish_ases", "topic",
              "cafile")  # options about messages and time, which the converged state has not


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
        scn = Scenario(name=f"{opts.attack}-{Path(opts.topology).name.split('.')[0]}", topology=opts.topology,
                       prefixes=[prefix], attack=attack(opts.attack))
        if opts.attack_prefix:
            scn.attack.prefix = parse_prefix(opts.attack_prefix, where="--attack-prefix")
    else:
        for flag in ("attack", "prefix", "attack_prefix"):
            if getattr(opts, flag):
                raise InputError(f"--{flag.replace('_', '-')} needs --topology (a scenario file says it itself)")
        scn = load_scenario(find_scenario(opts.scenario or DEFAULT_SCENARIO))
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


def parse_asns(text: str, what: str) -> list[tuple[int, str]]:
    """ASNs from "64500,AS64501" or from @FILE (spaces, commas, newlines; '#' comments), each with
    where it was written (for errors)."""
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            lines = path.read_text().splitlines()
        except (OSError, UnicodeDecodeError) as e:
            raise InputError(f"{what}: cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
        where = lambda n: f"{path}:{n}"
    else:
        lines = [text]
        where = lambda n: what
    out = []
    for n, line in enumerate(lines, start=1):
        for tok in line.split("#", 1)[0].replace(",", " ").split():
            try:
                out.append((parse_asn(tok), where(n)))
            except ValueError as e:
                raise InputError(f"{where(n)}: {e}") from None
    if not out:  # asked for ASes, given none: the policy would be deployed nowhere
        raise InputError(f"{what} {text[1:]}: no ASN in the file" if text.startswith("@") else f"{what}: no ASN given")
    return out


