"""bgpsim as a BGP speaker: sessions with real routers (`bgpsim bgp speak`)."""
