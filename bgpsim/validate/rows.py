"""The text of routes.csv, made by arrays.

Prefixes: an IPv4 prefix's text is at most 18 characters, so numpy writes it as three 64-bit words,
each padded with zero bytes: the first two octets with their dots from one table of 65,536 entries,
the last two with the slash from another, the length from a third. The words of a batch, their zero
bytes dropped (`bytes.translate`), are every text in a row.
IPv6 prefixes (rarer, and their text has the RFC 5952 zero run to find) go one at a time. Each text
is followed by MARK, so the batch is one `bytes` (`Prefixes.blob`) and no route needs an object.

Rows: the routes of one UPDATE with one RPKI status share every field but the prefix, so a run of
them is written at once, the MARKs between their prefixes replaced by the fields after one prefix
and before the next (`rows`): a full table costs a few Python operations per UPDATE, not per route.
"""

from __future__ import annotations

import numpy as np

from bgpsim.wire.nlri import network_text

MARK = b"\x01"  # ends each prefix's text in Prefixes.blob: no prefix text holds it
_U8 = np.uint64(8)
_tables: tuple | None = None


def _words() -> tuple:
    """Little-endian words of text and their lengths: "a.b." and "c.d/" for every pair of octets
    (index a * 256 + b), "n" + MARK for every prefix length n."""
    global _tables
    if _tables is None:
        octet = np.array([int.from_bytes(str(v).encode(), "little") for v in range(256)], dtype=np.uint64)
        width = np.array([len(str(v)) for v in range(256)], dtype=np.uint64)
        a, b = np.arange(65536) >> 8, np.arange(65536) & 255
        la, lb = width[a], width[b]

        def pair(last: bytes) -> np.ndarray:
            return (octet[a] | (np.uint64(ord(".")) << _U8 * la) | (octet[b] << _U8 * (la + np.uint64(1)))
                    | (np.uint64(ord(last)) << _U8 * (la + lb + np.uint64(1))))

        lengths = [str(n).encode() + MARK for n in range(129)]
        _tables = (pair("."), pair("/"), la + lb + np.uint64(2),
                   np.array([int.from_bytes(t, "little") for t in lengths], dtype=np.uint64),
                   np.array([len(t) for t in lengths], dtype=np.uint64))
    return _tables


def _ipv4(address: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """"a.b.", "c.d/" and "n" + MARK of each prefix as three words, each padded with zero bytes
    (which go when the words become text), and the text lengths."""
    first, last, pair_len, tail, tail_len = _words()
    address = np.asarray(address, dtype=np.uint64)
    hi = (address >> np.uint64(16)).astype(np.intp)
    lo = (address & np.uint64(0xFFFF)).astype(np.intp)
    length = np.asarray(length, dtype=np.intp)
    words = np.column_stack([first[hi], last[lo], tail[length]]).astype("<u8", copy=False)
    return words, pair_len[hi] + pair_len[lo] + tail_len[length]


class Prefixes:
    """The texts of a batch's prefixes (bgpsim.wire.nlri.network_text): `blob` holds them in order,
    each followed by MARK; route i's ends before ends[i] (the MARK at ends[i] - 1)."""

    def __init__(self, version: np.ndarray, hi: np.ndarray, lo: np.ndarray, length: np.ndarray):
        version, lo, length = np.asarray(version), np.asarray(lo), np.asarray(length)
        v6 = np.flatnonzero(version != 4)
        if not len(v6):
            words, size = _ipv4(lo, length)
        else:  # six words a row: an IPv6 text is up to 43 bytes
            words, size = np.zeros((len(length), 6), dtype="<u8"), np.zeros(len(length), dtype=np.uint64)
            v4 = np.flatnonzero(version == 4)
            words[v4, :3], size[v4] = _ipv4(lo[v4], length[v4])
            his, los, lens = np.asarray(hi)[v6].tolist(), lo[v6].tolist(), length[v6].tolist()
            texts = [network_text(2, (h << 64) | x, k).encode() + MARK for h, x, k in zip(his, los, lens)]
            size[v6] = [len(t) for t in texts]
            words[v6] = np.frombuffer(b"".join(t.ljust(48, b"\0") for t in texts), dtype="<u8").reshape(-1, 6)
        self.blob = words.tobytes().translate(None, b"\0")  # the texts hold no zero byte: only padding goes
        self.ends = np.cumsum(size, dtype=np.int64)

    def __getitem__(self, i: int) -> str:
        start = int(self.ends[i - 1]) if i else 0
        return self.blob[start:int(self.ends[i]) - 1].decode()

    def texts(self) -> list[str]:
        return self.blob.decode().split(MARK.decode())[:-1]


def prefix_texts(version: np.ndarray, hi: np.ndarray, lo: np.ndarray, length: np.ndarray) -> list[str]:
    """bgpsim.wire.nlri.network_text of each prefix given as arrays (IP version 4 or 6, the network
    address as its upper and lower 64 bits, IPv4 in `lo`; length)."""
    if not len(length):
        return []
    return Prefixes(version, hi, lo, length).texts()


def row_heads(time: np.ndarray, usec: np.ndarray, peer: np.ndarray, peers: list[bytes]) -> list[bytes]:
    """The first fields of routes.csv for each group: "time.usec,peer_ip,peer_as," (bgpdump's time
    with the microseconds of BGP4MP_ET, none where `usec` is negative), the peer's part from
    `peers` (peer[i] indexes it). Times of ten digits (September 2001 to 2286) are written by numpy;
    others one at a time."""
    t = np.asarray(time, dtype=np.int64)
    u = np.asarray(usec, dtype=np.int64)
    if not len(t) or t.min() < 10**9 or t.max() >= 10**10:
        texts = [(f"{a}.{b:06d}" if b >= 0 else f"{a}").encode() for a, b in zip(t.tolist(), u.tolist())]
    else:
        digits = np.zeros((len(t), 17), dtype=np.uint8)  # ten digits, a dot, six digits; zeros dropped
        for k in range(10):
            digits[:, 9 - k] = t // 10**k % 10 + 48
        has = u >= 0
        digits[has, 10] = ord(".")
        for k in range(6):
            digits[has, 16 - k] = u[has] // 10**k % 10 + 48
        texts = digits.view("S17").ravel().tolist()  # numpy drops the trailing zero bytes
    return [x + peers[p] for x, p in zip(texts, np.asarray(peer).tolist())]


def rows(prefixes: Prefixes, group: np.ndarray, status: np.ndarray, head: list[bytes], mid: list[bytes],
         state: list[bytes], tail: list[bytes], own: dict[int, bytes]) -> bytes:
    """The CSV lines of a batch: route i's is head[k] + its prefix + mid[k] + state[status[i]] +
    tail[k] for its group k = group[i] (groups in order), or head[k] + prefix + own[i] for the
    routes in `own`."""
    n = len(group)
    if not n:
        return b""
    cut = np.ones(n, dtype=bool)  # where a run starts: a new group or status, or a route of its own
    cut[1:] = (group[1:] != group[:-1]) | (status[1:] != status[:-1])
    if own:
        alone = np.fromiter(own, dtype=np.int64, count=len(own))
        cut[alone] = True
        cut[alone[alone + 1 < n] + 1] = True
    starts = np.flatnonzero(cut)
    stops = np.append(starts[1:], n)
    ends = prefixes.ends
    blob = prefixes.blob
    out = []
    for a, k, c, x, y in zip(starts.tolist(), group[starts].tolist(), status[starts].tolist(),
                             np.concatenate(([0], ends))[starts].tolist(), (ends[stops - 1] - 1).tolist()):
        h = head[k]
        rest = own[a] if a in own else mid[k] + state[c] + tail[k]
        out += (h, blob[x:y].replace(MARK, rest + h), rest)
    return b"".join(out)
