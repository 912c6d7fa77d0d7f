#!/usr/bin/env bash
# The compiled core (core/*.c) under AddressSanitizer: the extension is built in place with
# -fsanitize=address, the tests that reach it run (or the tests given as arguments), and the
# ordinary build is put back, whatever happened. ASan's runtime must come first in the process
# (LD_PRELOAD), Python's allocator steps aside (PYTHONMALLOC=malloc) so heap faults in the core are
# seen; leaks are not checked (the interpreter keeps memory to the end on purpose). Exit status:
# pytest's, so any report (which aborts the process) fails the run.
#
#   bench/asan_tests.sh                      # the tests of the readers that use the core
#   bench/asan_tests.sh tests/test_vrps.py   # these
set -uo pipefail
cd "$(dirname "$0")/.."
tests=("$@")
# by default the tests of the code that uses the core. Never those that draw figures, given or not:
# matplotlib's ft2font throws C++ exceptions, which the preloaded ASan runtime's interceptor cannot
# unwind (a CHECK failure inside ASan, not a fault it found)
[ ${#tests[@]} -gt 0 ] || tests=(tests/test_vrps_core.py tests/test_vrps.py tests/test_slurm.py tests/test_validate.py
                                  tests/test_validate_fast.py tests/test_validate_threads.py tests/test_textdump.py tests/test_mrt.py
                                  tests/test_pcap.py tests/test_bgpsec_dumps.py tests/test_aspath_core.py
                                  tests/test_rows_core.py tests/test_rov.py tests/test_bzip2.py tests/test_ris_live.py
                                  tests/test_alerts.py tests/test_steady_core.py tests/test_routes.py)
tests+=(--deselect tests/test_validate.py::test_findings_replay_as_scenarios)
restore() { python3 setup.py -q build_ext --inplace --force >/dev/null 2>&1; }
trap restore EXIT
CFLAGS="-fsanitize=address -fno-omit-frame-pointer -g -O1" LDFLAGS="-fsanitize=address" \
    python3 setup.py -q build_ext --inplace --force >/dev/null || exit 2
LD_PRELOAD="$(gcc -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0 PYTHONMALLOC=malloc \
    python3 -m pytest -q -p no:cacheprovider "${tests[@]}"
