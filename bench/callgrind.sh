#!/usr/bin/env bash
# Instructions and allocations per request, deterministic (see docs/benchmarks.md).
#
# Each binary runs under valgrind twice, once answering N1 and once N2 `POST /orders`;
# (cost(N2) - cost(N1)) / (N2 - N1) is the cost of one request, start-up and shutdown cancelling
# out. callgrind counts instructions; dhat counts allocations. MODE picks what answers:
#   servers (default)  X-server, the full server, fed by `loadgen` over one keep-alive
#                      loopback connection;
#   inproc             X-inproc, the same app called in process with no socket (the framework's
#                      own cost, without the connection, HTTP parsing and I/O);
#   both               the two, one after the other.
# green-tea is there twice: the macro form users write (green-tea-*) and the same app wired by
# hand (green-tea-wired-*). PROFILE picks the build: release (what `cargo build --release`
# gives), tuned (thin LTO, one codegen unit) or both (default); every binary is measured in
# each, and analyze.py prints one table per profile. SERVERS overrides the list of binaries
# (names ending in -server or -inproc); OUT the results file; PROFILES_DIR where the raw
# profiles go (results/profiles/<profile>/<binary>.<tool>.<n>). green-tea-build in SERVERS
# counts no request but one `build()` of each graph BUILD_SHAPES names (plain, vocabulary,
# modules and switched by default: the root's graph_shapes graphs), callgrind counting
# `ContainerBuilder::build` alone, as docs/benchmarks.md counts them: a row
# `green-tea-build:SHAPE` of tool `build`, the build's total. A server whose name holds
# `sqlite` (the SQLite write route's) opens a fresh database file in a temporary directory for
# each run (`DATABASE_URL`), removed afterwards, with `DATABASE_SYNCHRONOUS=normal` (the
# green-tea servers' recipe reads it; the axum servers set NORMAL in code).
#
# In process, a binary's figures repeat exactly from the same path and environment; a longer
# or shorter environment or path moves the stack's alignment, and memcpy's work with it, by up
# to 4 instructions a request. The servers vary by up to about 100 from run to run, more when
# the machine is saturated (a concurrent build once added 5,000 to axum's and 15,000 to
# actix-web's in release), so compare servers measured on a machine that is not.
set -euo pipefail
cd "$(dirname "$0")"
N1=${N1:-2000}
N2=${N2:-12000}
PORT=${PORT:-3998}
MODE=${MODE:-servers}
PROFILES_DIR=${PROFILES_DIR:-results/profiles}
export PROFILE=${PROFILE:-both}
servers_list="green-tea-server green-tea-wired-server axum-server actix-server hyper-server"
inproc_list="green-tea-inproc green-tea-wired-inproc axum-inproc actix-inproc hyper-inproc"
case $MODE in
    servers) default=$servers_list ;;
    inproc) default=$inproc_list ;;
    both) default="$servers_list $inproc_list" ;;
    *) echo "MODE must be servers, inproc or both, not '$MODE'" >&2; exit 2 ;;
esac
read -ra servers <<<"${SERVERS:-$default}"
source ./build.sh
profile_names=$(profiles)
mapfile -t profiles <<<"$profile_names"
# The loopback servers need the load generator.
needs_loadgen=
for server in "${servers[@]}"; do [[ $server == *-inproc || $server == *-build ]] || needs_loadgen=loadgen; done
for profile in "${profiles[@]}"; do build_servers "$profile" "${servers[@]}" ${needs_loadgen:+"$needs_loadgen"}; done
# BUILD_ONLY=1: the builds above, and nothing measured (cg-check.sh builds ahead so).
[ -z "${BUILD_ONLY:-}" ] || exit 0
command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
out=${OUT:-results/callgrind-$(date -u +%Y%m%dT%H%M%SZ).tsv}
mkdir -p "$(dirname "$out")"
printf 'profile\tserver\ttool\tn\ttotal\n' > "$out"

run_server() { # binary n log valgrind-flags...: the server under valgrind, loadgen sending n requests
    local binary=$1 n=$2 log=$3; shift 3
    local loadgen database=
    loadgen=$(dirname "$binary")/loadgen
    # A SQLite write route's server gets a fresh database file for each run (its environment
    # only: the others' stays as it was, since its length moves their figures a little).
    if [[ $binary == *sqlite* ]]; then
        database=$(mktemp -d)
        DATABASE_URL=sqlite://$database/bench.db DATABASE_SYNCHRONOUS=normal PORT=$PORT WORKERS=1 valgrind "$@" "$binary" 2>"$log" &
    else
        PORT=$PORT WORKERS=1 valgrind "$@" "$binary" 2>"$log" &
    fi
    local pid=$!
    for _ in $(seq 600); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.1; done
    "$loadgen" "http://127.0.0.1:$PORT" "$n"
    kill -INT "$pid"
    # Every server exits on SIGINT; one that does not within a minute has no profile to give.
    for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; echo "$binary did not exit on SIGINT" >&2; exit 1; fi
    wait "$pid" 2>/dev/null || true
    [ -z "$database" ] || rm -rf "$database"
}

run_inproc() { # binary n log valgrind-flags...: the driver answering n requests itself, under valgrind
    local binary=$1 n=$2 log=$3; shift 3
    # valgrind exits with the driver's status: non-zero (and so this script stops) on a non-200.
    valgrind "$@" "$binary" "$n" 2>"$log" || { echo "$binary $n failed; see $log" >&2; exit 1; }
}

measure() { # profile server tool n
    local profile=$1 server=$2 tool=$3 n=$4
    local file="$PROFILES_DIR/$profile/$server.$tool.$n"
    local flags=(--tool="$tool")
    if [ "$tool" = callgrind ]; then flags+=(--callgrind-out-file="$file"); else flags+=(--dhat-out-file="$file"); fi
    mkdir -p "$PROFILES_DIR/$profile"
    case $server in
        *-inproc) run_inproc "target/$profile/$server" "$n" "$file.log" "${flags[@]}" ;;
        *) run_server "target/$profile/$server" "$n" "$file.log" "${flags[@]}" ;;
    esac
    local total
    if [ "$tool" = callgrind ]; then
        total=$(awk '/^summary:/ { print $2 }' "$file")
    else
        total=$(grep -oE 'Total: +[0-9,]+ bytes in +[0-9,]+ blocks' "$file.log" | awk '{ gsub(",", "", $5); print $5 }')
    fi
    printf '%s\t%s\t%s\t%s\t%s\n' "$profile" "$server" "$tool" "$n" "$total" | tee -a "$out"
}

measure_build() { # profile binary: one build() of each shape, counted alone (no requests, no dhat)
    local profile=$1 binary=$2 shape file total
    mkdir -p "$PROFILES_DIR/$profile"
    for shape in ${BUILD_SHAPES:-plain vocabulary modules switched}; do
        file="$PROFILES_DIR/$profile/$binary.$shape.callgrind"
        valgrind --tool=callgrind --callgrind-out-file="$file" --toggle-collect='*ContainerBuilder*build*' \
            "target/$profile/$binary" "$shape" 2>"$file.log" || { echo "$binary $shape failed; see $file.log" >&2; exit 1; }
        total=$(awk '/^summary:/ { print $2 }' "$file")
        printf '%s\t%s\t%s\t%s\t%s\n' "$profile" "$binary:$shape" build 1 "$total" | tee -a "$out"
    done
}

for profile in "${profiles[@]}"; do
    for server in "${servers[@]}"; do
        if [[ $server == *-build ]]; then measure_build "$profile" "$server"; continue; fi
        for tool in callgrind dhat; do
            measure "$profile" "$server" "$tool" "$N1"
            measure "$profile" "$server" "$tool" "$N2"
        done
    done
done
python3 analyze.py callgrind "$out"
