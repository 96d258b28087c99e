#!/usr/bin/env bash
# The instruction and allocation regression check (run by .ci/run): measures green-tea in
# process (the framework's own path: routing, steps, values, handler, errors) as callgrind.sh
# does, and compares with cg-baseline.tsv: more instructions per request than the baseline's
# tolerance, or more allocations, fails. callgrind counts instructions, so the figures do not
# depend on the machine's load. CHECK="green-tea-inproc green-tea-server" adds the full server
# over loopback (slower: the server starts four times under valgrind).
# After an intended change, update cg-baseline.tsv with the new figures and say why.
set -euo pipefail
cd "$(dirname "$0")"
MODE=both SERVERS="${CHECK:-green-tea-inproc}" bash callgrind.sh
python3 analyze.py check "$(ls -t results/callgrind-*.tsv | head -1)" cg-baseline.tsv
