"""A lab with real routers: a router plays one AS of a scenario, bgpsim its neighbours (`bgpsim lab`)."""
