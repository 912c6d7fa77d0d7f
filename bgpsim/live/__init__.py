"""Live: BGP updates from RIS Live's WebSocket (aiohttp), MQTT (aiomqtt 2.x) or archived dumps,
validated as they arrive, and the alerts a watch list raises.

Feeds:
- `rislive`     RIS Live's messages: UPDATEs written as them, and every type read back (strict, bounded)
- `ris_ws`      `bgpsim monitor --ris-live`: RIS Live's WebSocket, subscribed, pinged, reconnected
- `replay`      `bgpsim monitor --replay` and `stream publish`: route dumps as a collector's feed
- `topics`      the MQTT topic layout under one prefix, and the retained status messages
- `broker`      broker URLs, TLS, credentials, one-line connection errors
- `publish`     `bgpsim stream publish`: route dumps replayed to a broker
- `simfeed`     `bgpsim run --publish`: a simulation's collector peers as a feed, and its timeline

The monitor:
- `monitor`     the feed checked by bgpsim.validate's Checker as it arrives (and the MQTT feed's loop)
- `monitoring`  one `bgpsim monitor` from its options: feed, VRPs, watch list, outputs, sinks
- `output`      its output directory: routes.csv, alerts.jsonl, per-group files, summary.json
- `watchlist`   the watch list's model; `watch` reads our TOML (and writes one from VRPs), `watch_yml`
                BGPalerter's prefixes.yml
- `alerts`      the monitors (hijack, paths, visibility, RPKI status ...) and their squashing
- `roas`        the VRPs kept current (a file read again, an RTR cache followed) and their changes
- `sinks`       where alerts go besides alerts.jsonl: MQTT, syslog, a webhook
"""
