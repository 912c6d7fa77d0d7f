"""MRT route dumps (RFC 6396): a streaming reader and bgpdump-compatible output.

    from bgpsim.mrt import read_routes
    for route in read_routes("updates.20160811.1600.gz"):
        ...
"""

from .reader import MAX_RECORD, MRTReader, RouteBatch, read_batches, read_routes
from .record import ANNOUNCE, RIB, STATE, WITHDRAW, Route

__all__ = ["read_routes", "read_batches", "RouteBatch", "MRTReader", "Route", "ANNOUNCE", "WITHDRAW", "RIB", "STATE", "MAX_RECORD"]
