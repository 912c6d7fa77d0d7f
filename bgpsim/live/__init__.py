"""Live: BGP updates over MQTT (aiomqtt 2.x) or RIS Live's WebSocket (aiohttp), validated as they arrive.

- `topics`   the topic layout under one prefix, and the retained status messages
- `rislive`  UPDATEs as RIS Live messages, and back to route records (strict, bounded)
- `ris_ws`   `bgpsim monitor --ris-live`: RIS Live's WebSocket, subscribed, pinged, reconnected
- `broker`   broker URLs, TLS, credentials, one-line connection errors
- `publish`  `bgpsim stream publish`: route dumps replayed as a feed
- `monitor`  `bgpsim monitor`: the feed checked by bgpsim.validate's Checker as it arrives
- `watch`    watched prefixes and the alerts their routes raise
- `simfeed`  `bgpsim run --publish`: a simulation's collector peers as a feed, and its timeline
"""
