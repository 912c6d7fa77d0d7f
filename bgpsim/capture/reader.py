"""Routes from captured BGP sessions: pcap and pcapng files read through scapy.

Files: pcap (tcpdump.org format, micro- or nanosecond timestamps) and pcapng (IETF draft-ietf-opsawg-
pcapng: Section Header, Interface Description and (Enhanced/Simple) Packet Blocks; each interface
has its own link type and timestamp resolution; a Simple Packet Block has no timestamp and gives
time 0), plain, gzip or bzip2. scapy reads the file framing; `links` takes off the link-layer
header; scapy dissects IPv4 (RFC 791) / IPv6 (RFC 8200) and TCP (RFC 9293); `tcp.Stream` reassembles
each direction of a connection with port 179 on either side and cuts it into BGP messages (RFC 4271
section 4.1). IP fragments are not reassembled (BGP
speakers send whole segments); such packets are skipped with a warning.

Routes are those of the MRT reader (same `Route` records, made by `MRTReader.update_routes`), with
record "BGP4MP_ET" (or "BGP4MP_ET_AP"): time and microseconds from the packet that completed the
UPDATE, peer IP the sender's address, peer AS the sender's from its OPEN (RFC 4271 section 4.2 My
Autonomous System, or the RFC 6793 section 3 4-octet AS capability) or 0 when its OPEN is not in
the capture, local AS (`Route.local_as`: for BGPsec, RFC 8205 section 4.2, the Target AS of the
newest signature) the receiver's from its OPEN, or None when that OPEN is not in the capture. AS
numbers in AS_PATH and AGGREGATOR are 4 octets when both OPENs advertised the 4-octet AS capability
and 2 octets when either OPEN lacks it (RFC 6793 section 4). ADD-PATH (RFC 7911
section 4) applies to the sender's UPDATEs when its OPEN offered to send and the other OPEN to receive
for some address family (one setting per direction, not per family).

When the capture holds neither the OPENs (it started after the session came up), the ASN size is a
guess from the AS_PATH bytes of the first UPDATE with a non-empty path: the size at which the
attributes parse, and when both do, 4 if reading them as 2-octet ASNs gives an AS 0 (the zero high
halves of 4-octet encoded ASNs), else 2; an UPDATE with a BGPsec_PATH says 4 (RFC 8205 section 2.2:
BGPsec speakers speak 4-octet ASNs). The guess holds for the rest of the session.

Errors. A file that is not a capture is an `InputError`. Damage after that never stops reading with
an exception: a malformed packet, a hole in a TCP stream or a damaged UPDATE is a warning naming the
file and the packet number (1-based, as tshark and Wireshark count), and reading goes on; a capture
whose framing is damaged gives the packets before the damage and one warning. What scapy itself says
while it reads (its log records, "WARNING: PcapNg: ..."; its `warnings`) never reaches standard error:
`scapylog` hands it to the reader, which warns "FILE: packet N: scapy: ..." (N the packet being read;
each message once, repeats counted and told at the end of the file), or adds it to the `InputError`
when scapy cannot read the file header at all.
"""

from __future__ import annotations

import bz2
import gzip
import socket
import zlib
from typing import Callable, Iterator

from bgpsim.base.errors import InputError, stderr_warning
from bgpsim.mrt.reader import MRTReader
from bgpsim.mrt.record import Route
from bgpsim.wire import WireError
from bgpsim.wire.attributes import parse_attributes
from bgpsim.wire.nlri import address_text
from bgpsim.wire.open import parse_open
from bgpsim.wire.update import OPEN, UPDATE, split_update
from .links import ETH_IPV4, LINK_TYPES, ip_start
from .scapylog import catching
from .tcp import Stream

BGP_PORT = 179
MAX_BLOCK = 1 << 24  # bytes scapy may ask for at once: far above any real packet block
MAX_FLOWS = 1 << 16  # TCP directions followed at once; the oldest is dropped past this
MAX_SCAPY_MESSAGES = 64  # kinds of scapy message told one by one in a capture; the rest only counted
PCAP_MAGICS = (b"\xa1\xb2\xc3\xd4", b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\x3c\x4d", b"\x4d\x3c\xb2\xa1",
               b"\x0a\x0d\x0d\x0a")  # pcap (us, ns; both byte orders) and the pcapng Section Header Block


class _BoundedFile:
    """The capture's bytes for scapy, refusing a read larger than MAX_BLOCK: a damaged length field
    then ends the capture (scapy takes the OSError for its end) instead of allocating gigabytes."""

    def __init__(self, f, name: str):
        self.f = f
        self.name = name
        self.pos = 0
        self.refused: str | None = None

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0 or n > MAX_BLOCK:
            self.refused = f"a block length asks for {n} bytes (at most {MAX_BLOCK} read at once)"
            raise OSError(self.refused)
        try:
            data = self.f.read(n)
        except (EOFError, OSError, zlib.error) as e:  # a damaged or cut gzip/bzip2 stream: the end of the capture
            self.refused = f"compressed data damaged or cut short ({e})"
            raise OSError(self.refused) from None
        self.pos += len(data)
        return data

    def seek(self, *_):
        raise OSError("capture inside a compressed capture: not read")

    def close(self) -> None:
        self.f.close()


def _open(path: str) -> _BoundedFile:
    try:
        with open(path, "rb") as f:
            head = f.read(3)
        if head[:2] == b"\x1f\x8b":
            f = gzip.open(path, "rb")
        elif head == b"BZh":
            f = bz2.open(path, "rb")
        else:
            f = open(path, "rb")
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", path) from None
    return _BoundedFile(f, path)


def _guess_asn_size(msg: bytes) -> int | None:
    """2 or 4 from the AS_PATH of an UPDATE (see the module docstring); None when it cannot tell."""
    try:
        _w, (a0, a1), _n = split_update(msg, 19, len(msg))
    except WireError:
        return None
    block = msg[a0:a1]
    paths = {}
    for size in (2, 4):
        try:
            a = parse_attributes(block, size)
        except (WireError, IndexError):
            continue
        if a.bgpsec is not None:  # RFC 8205 section 2.2: only between 4-octet AS speakers
            return 4
        if a.as_path:
            paths[size] = a.as_path
    if len(paths) == 1:
        return next(iter(paths))
    if len(paths) == 2:
        return 4 if any(0 in asns for _t, asns in paths[2]) else 2
    return None


class _Session:
    """Both directions of one TCP connection: what the OPENs said."""

    __slots__ = ("opens", "guess")

    def __init__(self):
        self.opens: dict = {}  # sender (ip, port) -> Open
        self.guess: int | None = None


class CaptureReader:
    def __init__(self, path: str, warn: Callable[[str], None] | None = None):
        self.path = path  # a str, or Stdin (opened by its fspath, named <stdin>)
        self.warn = warn or stderr_warning
        self.packets = 0
        self.updates = 0  # UPDATE messages found (whole ones, damaged or not)
        self._mrt = MRTReader(self.path, self.warn)  # its attribute cache and UPDATE decoding
        self._flows: dict = {}  # (src, sport, dst, dport) -> Stream
        self._sessions: dict = {}  # frozenset of both endpoints -> _Session
        self._warned: set = set()
        self._scapy: dict = {}  # scapy's message -> [first packet, times said again, last packet]
        self._scapy_more = [0, 0]  # messages past MAX_SCAPY_MESSAGES kinds: how many, the last packet
        self._opening: list | None = None  # scapy's messages before the first packet (see `routes`)
        self._file: _BoundedFile | None = None
        self._scapy_sink = self._scapy_said  # one bound method: `catching` takes it out by identity

    def _once(self, key, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            self.warn(message)

    def routes(self) -> Iterator[Route]:
        self._opening = []  # what scapy says before the first packet: loading, reading the file header
        with catching(self._scapy_sink):
            yield from self._routes()

    def _routes(self) -> Iterator[Route]:
        from scapy.error import Scapy_Exception
        from scapy.utils import RawPcapReader

        f = self._file = _open(self.path)
        try:
            try:
                pcap = RawPcapReader(f)
            except (Scapy_Exception, OSError, EOFError) as e:
                said = "".join(f" (scapy: {t})" for t in self._opening)
                raise InputError(f"not a pcap or pcapng capture: {e}{said}", self.path) from None
            for text in self._opening:  # scapy loaded or read the file header and had something to say
                self.warn(f"{self.path}: before packet 1: scapy: {text}")
            self._opening = None
            nano = getattr(pcap, "nano", False)
            while True:
                self.packets += 1  # the packet being read, for what scapy says meanwhile
                try:
                    data, meta = next(pcap)
                except StopIteration:
                    self.packets -= 1
                    break
                except Exception as e:  # scapy signals damaged blocks with assorted exceptions
                    self.packets -= 1
                    self._scapy_repeats()
                    self.warn(f"{self.path}: after packet {self.packets}: damaged capture ({type(e).__name__}: {e}); "
                              f"rest skipped")
                    return
                if hasattr(meta, "tsresol"):  # pcapng
                    linktype = meta.linktype
                    if meta.tshigh is None or meta.tslow is None or not meta.tsresol:
                        sec = usec = 0  # a Simple Packet Block: no timestamp
                    else:
                        ts = (meta.tshigh << 32) | meta.tslow
                        sec, frac = divmod(ts, meta.tsresol)
                        usec = frac * 1_000_000 // meta.tsresol
                else:
                    linktype = pcap.linktype
                    sec, usec = meta.sec, (meta.usec // 1000 if nano else meta.usec)
                yield from self._packet(linktype, data, sec, min(usec, 999_999))
            self._scapy_repeats()
            try:
                rest = f.refused or f.read(1)
            except OSError:
                rest = True
            if rest:
                self.warn(f"{self.path}: damaged capture after packet {self.packets} (byte {f.pos}"
                          f"{': ' + f.refused if f.refused else ''}); rest skipped")
            for key, stream in self._flows.items():
                for note in stream.finish():
                    self.warn(f"{self.path}: end of capture: TCP {self._flow_text(key)}: {note}")
        finally:
            f.close()

    def _scapy_said(self, text: str) -> None:
        """Something scapy logged or warned while this capture was read (see `scapylog`): a warning naming
        the file and the packet being read, once for each message; repeats are counted and told at the end."""
        text = " ".join(str(text).split())
        if not text or text.endswith(":"):  # e.g. "PcapNg: " for an EOFError without text: it says nothing
            return
        refused = self._file.refused if self._file is not None else None
        if refused and " ".join(refused.split()) in text:
            return  # scapy repeating the OSError of _BoundedFile, which the reader's own warning tells
        if self._opening is not None:
            self._opening.append(text)
            return
        seen = self._scapy.get(text)
        if seen is not None:
            seen[1] += 1
            seen[2] = self.packets
        elif len(self._scapy) < MAX_SCAPY_MESSAGES:
            self._scapy[text] = [self.packets, 0, self.packets]
            self.warn(f"{self.path}: packet {self.packets}: scapy: {text}")
        else:
            self._scapy_more[0] += 1
            self._scapy_more[1] = self.packets

    def _scapy_repeats(self) -> None:
        for text, (first, again, last) in self._scapy.items():
            if again:
                times = f"{again} more time{'s' if again > 1 else ''}"
                self.warn(f"{self.path}: packet {last}: scapy: {text} (said {times} since packet {first}; "
                          f"this was the last)")
        more, last = self._scapy_more
        if more:
            self.warn(f"{self.path}: packet {last}: scapy: {more} more messages not shown (past {MAX_SCAPY_MESSAGES} "
                      f"kinds; the last at this packet)")
        self._scapy.clear()
        self._scapy_more = [0, 0]

    @staticmethod
    def _flow_text(key) -> str:
        src, sport, dst, dport = key
        return f"{src} port {sport} -> {dst} port {dport}"

    def _packet(self, linktype: int, data: bytes, sec: int, usec: int) -> Iterator[Route]:
        from scapy.layers.inet import IP, TCP
        from scapy.layers.inet6 import IPv6, IPv6ExtHdrFragment
        from scapy.packet import Padding

        number = self.packets
        if linktype not in LINK_TYPES:
            self._once(("link", linktype), f"{self.path}: packet {number}: link type {linktype} not read by bgpsim "
                                           f"(packets of this type skipped)")
            return
        hit = ip_start(linktype, data)
        if hit is None:
            return
        etype, off = hit
        try:
            pkt = (IP if etype == ETH_IPV4 else IPv6)(data[off:])
            tcp = pkt.getlayer(TCP)
            if tcp is None or BGP_PORT not in (tcp.sport, tcp.dport):
                return
            net = tcp.underlayer
            while net is not None and not isinstance(net, (IP, IPv6)):
                net = net.underlayer
            if isinstance(net, IP):
                if net.frag or net.flags.MF:
                    self._once("frag", f"{self.path}: packet {number}: IP fragments are not reassembled (skipped)")
                    return
                whole = net.len
            elif pkt.haslayer(IPv6ExtHdrFragment):
                self._once("frag", f"{self.path}: packet {number}: IP fragments are not reassembled (skipped)")
                return
            else:
                whole = 40 + net.plen
            have = len(data) - off if net is pkt else whole  # inside a tunnel: not checked
            payload = bytes(tcp.payload)
            pad = tcp.payload.getlayer(Padding)
            if pad is not None:  # bytes past the IP length: a link-layer trailer, not TCP data
                payload = payload[:len(payload) - len(pad.load)]
            src = address_text(socket.inet_pton(socket.AF_INET if isinstance(net, IP) else socket.AF_INET6, net.src))
            dst = address_text(socket.inet_pton(socket.AF_INET if isinstance(net, IP) else socket.AF_INET6, net.dst))
            seq, flags, sport, dport = tcp.seq, int(tcp.flags), tcp.sport, tcp.dport
        except Exception as e:  # scapy's dissectors signal damaged headers with assorted exceptions
            self.warn(f"{self.path}: packet {number}: damaged IP/TCP headers ({type(e).__name__}: {e}); skipped")
            return
        key = (src, sport, dst, dport)
        stream = self._flows.get(key)
        if stream is None:
            if len(self._flows) >= MAX_FLOWS:
                old = next(iter(self._flows))
                del self._flows[old]
                self._once("flows", f"{self.path}: packet {number}: more than {MAX_FLOWS} TCP directions at once; "
                                    f"the oldest are dropped")
            stream = self._flows[key] = Stream()
        sess_key = frozenset(((src, sport), (dst, dport)))
        session = self._sessions.get(sess_key)
        if session is None:
            if len(self._sessions) >= MAX_FLOWS:
                del self._sessions[next(iter(self._sessions))]
            session = self._sessions[sess_key] = _Session()
        if flags & 0x02:  # SYN: it takes one sequence number, so data it carries (TCP Fast Open) starts after it
            stream.syn(seq)
            seq = (seq + 1) % (1 << 32)
        missing = max(0, whole - have)  # cut short by the snap length
        messages, notes = stream.segment(seq, payload, missing)
        for note in notes:
            self.warn(f"{self.path}: packet {number}: TCP {self._flow_text(key)}: {note}")
        for msg in messages:
            mtype = msg[18]
            if mtype == OPEN:
                try:
                    session.opens[(src, sport)] = parse_open(msg, 19, len(msg))
                except WireError as e:
                    self.warn(f"{self.path}: packet {number}: OPEN from {src}: {e}")
            elif mtype == UPDATE:
                self.updates += 1
                yield from self._update(msg, session, (src, sport), (dst, dport), src, sec, usec, number)

    def _update(self, msg, session, sender, receiver, src, sec, usec, number) -> Iterator[Route]:
        mine = session.opens.get(sender)
        theirs = session.opens.get(receiver)
        if mine is not None and theirs is not None:
            asn_size = 4 if mine.as4 and theirs.as4 else 2
        elif (mine is not None and not mine.as4) or (theirs is not None and not theirs.as4):
            asn_size = 2
        else:
            if session.guess is None:
                session.guess = _guess_asn_size(msg)
            asn_size = session.guess or 2
        addpath = bool(mine and theirs and any(bits & 2 and theirs.add_path.get(family, 0) & 1
                                               for family, bits in mine.add_path.items()))
        routes, damage, notes = self._mrt.update_routes(msg, "BGP4MP_ET_AP" if addpath else "BGP4MP_ET", sec, usec, src,
                                                 mine.my_as if mine is not None else 0, asn_size, addpath,
                                                 theirs.my_as if theirs is not None else None)
        if damage is not None:
            self.warn(f"{self.path}: packet {number}: UPDATE from {src}: {damage}")
        for note in notes:
            self.warn(f"{self.path}: packet {number}: UPDATE from {src}: {note}")
        yield from routes


def read_capture_routes(path: str, warn: Callable[[str], None] | None = None) -> Iterator[Route]:
    """Routes of the pcap or pcapng file at `path`, in capture order. Warnings go to `warn` (default: stderr)."""
    return CaptureReader(path, warn).routes()


def is_capture(head: bytes) -> bool:
    """Whether the first bytes of a (decompressed) file are those of a pcap or pcapng file."""
    return head[:4] in PCAP_MAGICS

