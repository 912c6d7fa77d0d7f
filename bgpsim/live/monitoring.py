"""One `bgpsim monitor` from its options: the output checked first, the validation built (as
`bgpsim validate` builds it), the watch list, the monitor on the broker until idle or stopped, and
summary.json with the feed's counts and the alerts."""

from __future__ import annotations

import asyncio
import sys

from bgpsim.base.console import Status
from bgpsim.validate.validation import Validation, header

from .monitor import Monitor, run
from .output import MonitorOutput


class MonitorRun:
    def __init__(self, opts, source, addr=None, topics=None):
        """`opts`: what `bgpsim monitor`'s parser gives; `source`: the feed (a RisLive, a Replay or a BmpStation, or None
        for the MQTT feed at the broker); `addr`, `topics`: the broker, checked (None without --broker),
        which with another feed takes the alerts only."""
        self.opts, self.source, self.addr, self.topics = opts, source, addr, topics
        self.status = Status(not opts.quiet and sys.stderr.isatty(), "update")
        self.out = MonitorOutput(opts.out, header(bool(opts.router_keys)), self.warn, opts.by_group)  # checked;
        # written once connected
        if hasattr(source, "record"):
            source.record = self.out.record  # a BMP station's UPDATEs, as MRT beside routes.csv
        if hasattr(source, "prepare"):
            source.prepare()  # a replay's first message: its files checked before any connection; a station's address
        from .roas import Roas, VrpCache, VrpFile, table_of

        vrps = VrpCache(opts.rtr) if opts.rtr else VrpFile(opts.vrps, opts.slurm)
        self.v = Validation.from_args(opts, vrps=table_of(vrps.vrps))  # an RTR cache's: once it is reached
        self.watcher = watch = None
        if opts.watch:
            from bgpsim.validate.paths import PathJudge

            from .alerts import Watcher
            from .watch import load_watch

            v = self.v
            watch = load_watch(opts.watch, self.warn)
            self.watcher = Watcher(watch, v.vrps, v.aspa, PathJudge(v.topo) if v.topo is not None else None, v.roles)
        self.roas = Roas(vrps, watch, self.new_vrps, self.roa_alert if watch is not None else None)
        self.syslog = self.webhook = self.mqtt = None
        if source is not None and addr is not None:  # the feed is not MQTT: the broker only takes the alerts
            from .sinks import Mqtt

            self.mqtt = Mqtt(addr, topics)
        if opts.syslog:
            from .sinks import Syslog

            self.syslog = Syslog(opts.syslog)
            self.syslog.open()  # before any work: a receiver that is not there is an error now
        if opts.webhook:
            from .sinks import Webhook

            self.webhook = Webhook(opts.webhook)
            self.webhook.check()
        self.checker = self.v.checker(self.out.routes)
        # the MQTT feed's topics: its loop publishes the monitor's outbox (another feed's alerts go by self.mqtt)
        self.monitor = Monitor(self.checker, topics if source is None else None, self.warn, self.watcher, self.alerted)

    def new_vrps(self, table) -> None:
        """The VRPs changed: what waits is checked against the old ones, what comes against these."""
        self.checker.drain()
        self.checker.vrps = table
        if self.watcher is not None:
            self.watcher.set_vrps(table)

    def roa_alert(self, alert: dict) -> None:
        self.alerted(alert)
        if self.source is None:  # the MQTT feed's loop publishes the monitor's outbox
            self.monitor.outbox.append(alert)

    def warn(self, message: str) -> None:
        self.status.write(f"bgpsim: warning: {message}")

    def alerted(self, alert: dict) -> None:
        from .sinks import alert_line

        self.out.alert(alert)
        for sink in (self.syslog, self.webhook, self.mqtt):
            if sink is not None:
                sink.send(alert, self.warn)
        if not self.opts.quiet:
            self.status.write(f"bgpsim: {alert_line(alert)}")

    def flushed(self) -> None:
        if self.status.enabled:
            c, t, watcher = self.monitor.counts, self.checker.tally, self.watcher
            self.status(c.updates, f"{t.routes:,} routes: " + ", ".join(f"{k} {v:,}" for k, v in t.rpki.items() if v)
                        + (f"; {sum(watcher.squash.raised.values()):,} alerts" if watcher is not None else "")
                        + (f"; {c.unreadable:,} unreadable" if c.unreadable else "")
                        + (f"; {c.dropped:,} dropped" if c.dropped else ""))

    def run(self) -> dict:
        """Monitor until idle for --until-idle or stopped (SIGTERM, Ctrl-C: what came is checked, then
        the session is left); summary.json's document, once written."""
        opts, out = self.opts, self.out

        async def main() -> None:
            import signal

            stop, hup = asyncio.Event(), asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):  # stop cleanly: check what came, then disconnect
                loop.add_signal_handler(sig, stop.set)
            loop.add_signal_handler(signal.SIGHUP, hup.set)  # read the VRPs again
            from .roas import VrpCache, table_of

            if isinstance(self.roas.source, VrpCache):
                await self.roas.source.start()  # before any work: a cache that is not there is an error now
                self.new_vrps(table_of(self.roas.source.vrps))
            if self.mqtt is not None:
                await self.mqtt.start(self.warn)  # before any work, too
            roas = asyncio.ensure_future(self.roas.run(self.warn, hup))
            if self.webhook is not None:
                self.webhook.start(self.warn)
            try:
                if self.source is not None:
                    await self.source.run(self.monitor, opts.until_idle, self.flushed, stop, on_connected=out.open)
                else:
                    await run(self.monitor, self.addr, opts.client_id, opts.until_idle, self.flushed, stop,
                              on_connected=out.open)
            finally:
                roas.cancel()
                for sink in (self.webhook, self.mqtt):
                    if sink is not None:
                        await sink.finish()

        try:
            asyncio.run(main())
        except BaseException:
            out.close(None)  # what was checked stays in routes.csv; the counts of a failed run are not added
            raise
        finally:
            self.status.close()
            if self.syslog is not None:
                self.syslog.close()
        doc = self.v.summary(self.checker, self.checker.finish(), [self.feed_name])
        c = self.monitor.counts
        took = (c.last_at - c.first_at) if c.first_at is not None else 0.0
        doc["feed"] = {"messages": c.messages, "updates": c.updates, "repeats": c.repeats, "unreadable": c.unreadable,
                       "missing": c.missing, "late": c.late, "lost_at_stop": c.lost_at_stop, "dropped": c.dropped,
                       "most_waiting": c.most_waiting, "reconnects": c.reconnects, "by_type": dict(c.types),
                       "server_messages": dict(c.server), "seconds": round(took, 3),
                       "updates_per_second": round(c.updates / took) if took > 0 else None}
        if self.watcher is not None:
            squash = self.watcher.squash
            doc["alerts"] = {"watched": len(self.watcher.watched), "by_kind": dict(squash.raised + self.roas.kinds),
                             "routes": squash.routes}
            if self.syslog is not None:
                doc["alerts"]["syslog"] = {"sent": self.syslog.sent, "failed": self.syslog.failed}
            if self.webhook is not None:
                w = self.webhook
                doc["alerts"]["webhook"] = {"sent": w.sent, "failed": w.failed, "dropped": w.dropped}
            if self.mqtt is not None:
                doc["alerts"]["mqtt"] = {"sent": self.mqtt.sent, "dropped": self.mqtt.dropped}
        out.close(doc)
        return doc

    @property
    def feed_name(self) -> str:
        return str(self.source) if self.source is not None else f"{self.addr}/{self.topics.updates}"

    def said(self, doc: dict) -> str:
        """The line for the terminal at the end."""
        c, out = self.monitor.counts, self.out
        runs = f" (with the earlier runs': {out.previous['routes'] + doc['routes']:,})" if out.previous else ""
        return (f"{c.updates:,} updates ({c.unreadable:,} unreadable, {c.repeats:,} repeats) from {self.feed_name}; "
                f"{doc['routes']:,} announced routes checked{runs}; written: {out.out}/routes.csv, alerts.jsonl, "
                "summary.json\n")
