"""`bgpsim stream publish`: route dumps replayed as a live feed, one RIS Live message per UPDATE.

Paced by the dump's own timestamps (`speed` times as fast), or flat out (as fast as the broker takes
QoS 1 messages). With `batch` > 1 the messages also go, `batch` at a time as one JSON array, to the
batched topic, which carries many more updates per second than one MQTT message each.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass

from bgpsim.base.errors import InputError

from .broker import BrokerAddress, client, connect_error
from .rislive import update_messages
from .topics import Topics, status


@dataclass
class Published:
    updates: int = 0
    messages: int = 0
    seconds: float = 0.0


def _messages(files):
    from bgpsim.routedata import Stdin, reader_for

    for f in files:
        src = Stdin() if f == "-" else f
        yield from update_messages(reader_for(src)(src), host=str(f).rsplit("/", 1)[-1])


async def publish(files, addr: BrokerAddress, topics: Topics, speed: float | None, batch: int = 1, qos: int = 1,
                  progress=None) -> Published:
    """Publish every UPDATE of `files`; `speed` None: flat out."""
    import aiomqtt

    done = Published()
    will = aiomqtt.Will(topics.status("publisher"), status("offline"), qos=1, retain=True)
    try:
        async with client(addr, will=will) as c:
            await c.publish(topics.status("publisher"), status("online"), qos=1, retain=True)
            start = time.perf_counter()
            first_ts = None
            pending: list[dict] = []
            for msg in _messages(files):
                if speed is not None:
                    first_ts = msg["timestamp"] if first_ts is None else first_ts
                    wait = (msg["timestamp"] - first_ts) / speed - (time.perf_counter() - start)
                    if wait > 0:
                        await asyncio.sleep(wait)
                if batch > 1:
                    pending.append(msg)
                    if len(pending) >= batch:
                        await c.publish(topics.batch, json.dumps(pending, separators=(",", ":")), qos=qos)
                        done.messages += 1
                        pending = []
                else:
                    await c.publish(topics.updates, json.dumps(msg, separators=(",", ":")), qos=qos)
                    done.messages += 1
                done.updates += 1
                if progress is not None:
                    progress(done.updates)
            if pending:
                await c.publish(topics.batch, json.dumps(pending, separators=(",", ":")), qos=qos)
                done.messages += 1
            await c.publish(topics.status("publisher"), status("done", updates=done.updates), qos=1, retain=True)
            done.seconds = time.perf_counter() - start
    except aiomqtt.MqttError as e:
        raise connect_error(e, addr) from None
    except OSError as e:
        raise InputError(f"cannot connect to the broker {addr}: {e.strerror or e}") from None
    return done
