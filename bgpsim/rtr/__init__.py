"""The RPKI-to-Router protocol (RFC 6810, RFC 8210, draft-ietf-sidrops-8210bis): PDUs, the cache's
data, the server routers connect to, and a client that reads any cache."""
