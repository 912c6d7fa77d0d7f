"""`bgpsim stream publish`: route dumps replayed as a live feed, one RIS Live message per UPDATE.

Paced by the dump's own timestamps (`speed` times as fast), or flat out (as fast as the broker takes
QoS 1 messages). With `batch` > 1 the messages also go, `batch` at a time as one JSON array, to the
batched topic, which carries many more updates per second than one MQTT message each.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections import deque
from dataclasses import dataclass

from bgpsim.base.errors import InputError

from .broker import BACKOFF, IN_FLIGHT, BrokerAddress, client, connect_error
from .replay import messages_of
from .topics import Topics, status


MAX_RECONNECTS = 100


@dataclass
class Published:
    updates: int = 0
    messages: int = 0
    seconds: float = 0.0
    reconnects: int = 0


async def publish(files, addr: BrokerAddress, topics: Topics, speed: float | None, batch: int = 1, qos: int = 1,
                  progress=None, warn=None, live=None) -> Published:
    """Publish every UPDATE of `files`, or the messages (dicts) of the async iterator `live` (a BMP
    station's); `speed` None: flat out. If the broker goes away after the first connection, reconnect
    (waiting 0.5 s, doubling to 10 s) and send again, in order, what it had not confirmed: a message
    may then arrive twice, which the monitor recognises by its `id`."""
    import aiomqtt

    done = Published()
    if live is not None:
        outgoing = _payloads(live, topics, batch, None, done, progress)
    else:
        messages = messages_of(files)
        # the first message read before the broker is reached: a file that is not route data is its own error
        first = list(itertools.islice(messages, 1))
        outgoing = _payloads(_each(itertools.chain(first, messages)), topics, batch, speed, done, progress)
    unconfirmed: list[tuple[str, str]] = []  # sent on a connection that went away before the broker confirmed
    first, delay = True, BACKOFF[0]
    start = time.perf_counter()
    while True:
        will = aiomqtt.Will(topics.status("publisher"), status("offline"), qos=1, retain=True)
        window: deque = deque()  # (task, topic, payload) in flight, oldest first
        try:
            async with client(addr, will=will, inflight=IN_FLIGHT) as c:
                await c.publish(topics.status("publisher"), status("online"), qos=1, retain=True)
                first, delay = False, BACKOFF[0]
                again, unconfirmed = unconfirmed, []
                for topic, payload in again:
                    await c.publish(topic, payload, qos=qos)
                    done.messages += 1
                async for topic, payload in outgoing:
                    # up to IN_FLIGHT publishes at once: one awaited at a time would wait a round trip each
                    window.append((asyncio.ensure_future(c.publish(topic, payload, qos=qos)), topic, payload))
                    if len(window) >= IN_FLIGHT:
                        await window[0][0]
                        window.popleft()
                        done.messages += 1
                while window:
                    await window[0][0]
                    window.popleft()
                    done.messages += 1
                await c.publish(topics.status("publisher"), status("done", updates=done.updates), qos=1, retain=True)
                break
        except aiomqtt.MqttError as e:
            if first:
                raise connect_error(e, addr) from None
            for task, topic, payload in window:  # in order: what the broker has not confirmed goes again
                if not task.done():
                    task.cancel()
                    unconfirmed.append((topic, payload))
                elif task.cancelled() or task.exception() is not None:
                    unconfirmed.append((topic, payload))
                else:
                    done.messages += 1
            done.reconnects += 1
            if warn is not None:
                warn(f"lost the broker {addr} ({e}); reconnecting in {delay:g} s")
            if done.reconnects > MAX_RECONNECTS:
                raise InputError(f"the broker {addr} went away {MAX_RECONNECTS} times; giving up") from None
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF[1])
        except OSError as e:
            raise connect_error(e, addr) from None
    done.seconds = time.perf_counter() - start
    return done


async def _each(messages):
    for msg in messages:
        yield msg


async def _payloads(messages, topics: Topics, batch: int, speed: float | None, done: Published, progress):
    """(topic, payload) to send of the messages (an async iterator), paced by their timestamps when
    `speed` is given."""
    start = time.perf_counter()
    first_ts = None
    pending: list[dict] = []
    async for msg in messages:
        if speed is not None:
            first_ts = msg["timestamp"] if first_ts is None else first_ts
            wait = (msg["timestamp"] - first_ts) / speed - (time.perf_counter() - start)
            if wait > 0:
                await asyncio.sleep(wait)
        done.updates += 1
        if progress is not None:
            progress(done.updates)
        if batch > 1:
            pending.append(msg)
            if len(pending) >= batch:
                yield topics.batch, json.dumps(pending, separators=(",", ":"))
                pending = []
        else:
            yield topics.updates, json.dumps(msg, separators=(",", ":"))
    if pending:
        yield topics.batch, json.dumps(pending, separators=(",", ":"))
