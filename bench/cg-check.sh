#!/usr/bin/env bash
# The instruction and allocation regression check (run by .ci/run): measures green-tea as
# callgrind.sh does and compares with cg-baseline.tsv: more instructions per request than a
# row's tolerance, or more allocations, fails, and so does a `build()` of more instructions than
# its row's tolerance. callgrind counts instructions, so the figures do not depend on the
# machine's load.
#
# What it measures, per profile (CHECK_RELEASE and CHECK_TUNED override the lists):
#   release  (what `cargo build --release` gives users) both forms in process, the macro
#            form's full server over loopback, and `build()` of the three 10,000-declaration
#            graphs of docs/benchmarks.md (green-tea-build: its instructions, one build of
#            each graph, against a row per graph);
#   tuned    (thin LTO, one codegen unit) both forms in process.
# The macro form is what users write; the hand-wired one is the same app without the macros.
# The request counts are small because the figures are deterministic. Request i carries the id
# i, and a longer id costs more (about 16 instructions a digit), so N1..N2 = 1,000..2,000 keeps
# every id at four digits: the per-request figure is then within 3 instructions of the
# 2,000..12,000 of callgrind.sh, where 500..2,500 would be 7 under it.
# After an intended change, update cg-baseline.tsv with the new figures and say why.
set -euo pipefail
cd "$(dirname "$0")"
export N1=${N1:-1000} N2=${N2:-2000}
CHECK_RELEASE=${CHECK_RELEASE-green-tea-inproc green-tea-wired-inproc green-tea-server green-tea-build}
CHECK_TUNED=${CHECK_TUNED-green-tea-inproc green-tea-wired-inproc}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p results

# `cg-check.sh --build`: only build what the check measures, in both profiles, and stop (.ci/run
# starts it beside the test step, whose tests spend much of their time waiting on servers).
# callgrind.sh's own build (BUILD_ONLY), so that what is built is what it measures.
if [ "${1:-}" = --build ]; then
    [ -z "$CHECK_RELEASE" ] || PROFILE=release SERVERS=$CHECK_RELEASE BUILD_ONLY=1 bash callgrind.sh
    [ -z "$CHECK_TUNED" ] || PROFILE=tuned SERVERS=$CHECK_TUNED BUILD_ONLY=1 bash callgrind.sh
    exit
fi

# The tuned build (thin LTO, one codegen unit: the slow one) starts now, beside the release
# build and the release measurements, rather than after them: cargo builds two profiles in one
# target directory at once. callgrind.sh's own tuned build then finds it done (or, if it
# failed, fails in the open). It runs in a process group of its own, ended if we stop early.
if [ -n "$CHECK_TUNED" ]; then
    PROFILE=tuned SERVERS=$CHECK_TUNED BUILD_ONLY=1 setsid bash callgrind.sh \
        >"results/cg-check-$stamp-tuned-build.log" 2>&1 &
    tuned_build=$!
    trap 'kill -TERM -- "-$tuned_build" 2>/dev/null || true' EXIT
fi

outs=()
for profile in release tuned; do
    list=CHECK_${profile^^}
    [ -n "${!list}" ] || continue
    if [ "$profile" = tuned ]; then
        # Its status does not matter here: callgrind.sh builds again, a no-op if this built.
        wait "$tuned_build" || true
        trap - EXIT
    fi
    out=results/cg-check-$stamp-$profile.tsv
    # Its raw profiles apart from callgrind.sh's, whose N they would otherwise overwrite.
    PROFILE=$profile SERVERS=${!list} OUT=$out PROFILES_DIR=results/cg-check-profiles bash callgrind.sh
    outs+=("$out")
done
python3 analyze.py check cg-baseline.tsv "${outs[@]}"
