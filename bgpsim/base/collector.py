"""The cyclic garbage collector kept from walking large heaps again and again.

A collection of the oldest generation walks every object there. CPython starts one each time that
generation has grown by a quarter, so a run that builds a large result walks it several times over
(a relying party's 57,000 VRPs are some 450,000 objects: six walks, 0.44 s), and so does each
output made from a large run's objects. Both blocks here leave young objects to the collector as
ever: garbage that dies young is freed as before.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def frozen():
    """The objects alive now set aside from the cyclic collector (`gc.freeze`) until the block ends
    (unless they were frozen before it): for work that only reads them, such as a run's outputs."""
    before = gc.get_freeze_count()
    gc.freeze()
    try:
        yield
    finally:
        if not before:
            gc.unfreeze()


@contextmanager
def growing():
    """No collection of the oldest generation until the block ends, for work that builds a result
    object by object; the younger generations are collected as ever, so only cyclic garbage that
    outlived two collections waits for the block's end."""
    threshold = gc.get_threshold()
    gc.set_threshold(threshold[0], threshold[1], 1 << 30)
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
