"""The AS graph: CAIDA relationships and TOML topologies (topology), and generated ones (generate)."""
