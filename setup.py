"""The compiled core (docs/core.md): plain C, built with the machine's compiler by `pip install .`."""

import os
import re
from pathlib import Path

from setuptools import Extension, setup

CORE = Path("core")
SOURCES = ["module.c", "aspath.c", "bgptext.c", "bzip2.c", "bgptext_fields.c", "bgptext_line.c", "cones.c", "conflicts.c", "dataplane.c", "events.c", "intern.c", "json.c", "moments.c",
           "mrt.c", "mrt_addpath.c", "mrt_attrs.c", "mrt_out.c", "mrt_records.c", "mrt_text.c", "mrt_update.c", "pathtable.c", "rislive.c", "rislive_batch.c", "rislive_fields.c", "rows.c",
           "rov.c", "rov_index.c", "rov_reasons.c", "rtr.c", "steady.c", "steady_trace.c", "timed.c", "timed_send.c", "timed_fib.c", "timed_type.c", "timed_warm.c", "text.c", "vrps.c", "vrps_csv.c", "vrps_fields.c", "vrps_json.c", "vrps_split.c"]
# -O2 with link-time optimisation, unless CFLAGS name an optimisation level themselves (a debug build:
# CFLAGS="-O0 -g"), which then comes after Python's own flags and decides
OPT = [] if re.search(r"(^|\s)-O", os.environ.get("CFLAGS", "")) else ["-O2", "-flto=auto"]
setup(ext_modules=[Extension(
    "bgpsim._core",
    sources=[str(CORE / name) for name in SOURCES],
    depends=sorted(str(p) for p in CORE.glob("*.h")),
    extra_compile_args=["-std=c11", *OPT, "-pthread", "-fvisibility=hidden", "-Wall", "-Wextra"],
    extra_link_args=[*OPT, "-pthread"],
)])
