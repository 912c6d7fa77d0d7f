"""Captured BGP sessions (pcap, pcapng) read into the `Route` records of `bgpsim.mrt`.

    from bgpsim.capture import read_capture_routes
    for route in read_capture_routes("session.pcapng"):
        ...
"""

from .reader import CaptureReader, is_capture, read_capture_routes

__all__ = ["CaptureReader", "read_capture_routes", "is_capture"]
