"""Summarises bench/http.sh and bench/callgrind.sh results into the tables of docs/benchmarks.md.

Every comparison is within one build profile (`release`, `tuned`): one table per profile."""

import csv
import statistics
import sys
from collections import defaultdict

OURS = "green-tea-server"
PROFILE_ORDER = {"release": 0, "tuned": 1}


def rows_of(path):
    """The rows of a results TSV. Files from before the `profile` column were built with thin
    LTO and one codegen unit, which is the `tuned` profile now."""
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    for row in rows:
        row.setdefault("profile", "tuned")
    return rows


def by_profile(rows):
    """{profile: its rows}, in PROFILE_ORDER."""
    grouped = defaultdict(list)
    for row in rows:
        grouped[row["profile"]].append(row)
    return dict(sorted(grouped.items(), key=lambda item: (PROFILE_ORDER.get(item[0], 9), item[0])))


def http(path, ours=OURS):
    """`ours` is the server the ratios are of: bench/http.sh passes its list's first."""
    for profile, rows in by_profile(rows_of(path)).items():
        by_round = defaultdict(dict)
        for row in rows:
            by_round[row["round"]][row["server"]] = row
        others = sorted({r["server"] for r in rows} - {ours})
        print(f"profile `{profile}`")
        print()
        print(f"| {ours} / X (req/s, paired per round) | min | median | max |")
        print("|---|---|---|---|")
        for other in others:
            ratios = [float(r[ours]["req_per_s"]) / float(r[other]["req_per_s"])
                      for r in by_round.values() if ours in r and other in r]
            print(f"| vs {other} | {min(ratios):.3f} | {statistics.median(ratios):.3f} | {max(ratios):.3f} |")
        print()
        print("| server | median req/s | median p50 ms | median p99 ms |")
        print("|---|---|---|---|")
        for server in [ours] + others:
            mine = [r for r in rows if r["server"] == server]
            med = lambda key: statistics.median(float(r[key]) for r in mine)
            print(f"| {server} | {med('req_per_s'):.0f} | {med('p50_ms'):.3f} | {med('p99_ms'):.3f} |")
        print()


def same_mode_green_tea(server):
    """The green-tea row (the macro form) measured the same way as `server`: `X-server`
    (loopback) is compared with green-tea-server, `X-inproc` (in process, no socket) with
    green-tea-inproc; a SQLite write server (`X-sqlite-...-server`) with green-tea-sqlite-server."""
    if "-sqlite" in server:
        return "green-tea-sqlite-server"
    return "green-tea-" + server.rsplit("-", 1)[-1]


def per_request_costs(*paths):
    """{(profile, server, tool): cost of one request} from callgrind.sh TSVs (the difference
    of two N). A `build()`'s rows (tool `build`) are build_costs'."""
    totals = defaultdict(dict)
    for path in paths:
        for row in rows_of(path):
            if row["tool"] == "build":
                continue
            totals[(row["profile"], row["server"], row["tool"])][int(row["n"])] = int(row["total"])
    per_request = {}
    for key, by_n in totals.items():
        (n1, t1), (n2, t2) = sorted(by_n.items())
        per_request[key] = (t2 - t1) / (n2 - n1)
    return per_request


def build_costs(*paths):
    """{(profile, `green-tea-build:SHAPE`): instructions of one build()} from callgrind.sh TSVs."""
    return {(row["profile"], row["server"]): int(row["total"])
            for path in paths for row in rows_of(path) if row["tool"] == "build"}


def check(baseline_path, *paths):
    """Fails (exit 1) if a binary measured in `paths` costs more than its baseline row (same
    profile and binary): instructions by more than the row's tolerance, allocations by more
    than a tenth of one per request; for a `build()`'s row (`green-tea-build:SHAPE`), the
    build's instructions by more than its tolerance. A baseline row not measured this time is
    skipped."""
    measured = per_request_costs(*paths)
    builds = build_costs(*paths)
    failed = False
    compared = 0
    for row in csv.DictReader(open(baseline_path), delimiter="\t"):
        profile, server = row["profile"], row["server"]
        if (profile, server) in builds:
            # One build() of a graph: its instructions, no allocations counted (`-`).
            compared += 1
            ir, base = builds[(profile, server)], float(row["instructions"])
            limit = base * (1 + float(row["tolerance"]))
            verdict = "ok" if ir <= limit else "REGRESSION"
            failed |= ir > limit
            print(f"{server} ({profile}): {ir:,.0f} instructions a build() (baseline {base:,.0f}, "
                  f"limit {limit:,.0f}): {verdict}")
            continue
        if not any(p == profile and s == server for p, s, _ in measured):
            continue  # not asked for this time
        ir = measured.get((profile, server, "callgrind"))
        allocs = measured.get((profile, server, "dhat"))
        name = f"{server} ({profile})"
        if ir is None or allocs is None:
            print(f"{name}: measured by one tool only")
            failed = True
            continue
        compared += 1
        limit = float(row["instructions"]) * (1 + float(row["tolerance"]))
        verdict = "ok"
        if ir > limit or allocs > float(row["allocations"]) + 0.1:
            verdict = "REGRESSION"
            failed = True
        print(f"{name}: {ir:,.0f} instructions (baseline {float(row['instructions']):,.0f}, limit {limit:,.0f}), "
              f"{allocs:.1f} allocations (baseline {row['allocations']}): {verdict}")
    if compared == 0:
        print("nothing measured has a baseline")
        failed = True
    sys.exit(1 if failed else 0)


def callgrind(*paths):
    builds = build_costs(*paths)
    if builds:
        print("| binary | instructions of one build() |")
        print("|---|---|")
        # In the order measured (plain, vocabulary, modules), by profile.
        for (profile, server), ir in sorted(builds.items(), key=lambda item: PROFILE_ORDER.get(item[0][0], 9)):
            print(f"| {server} ({profile}) | {ir:,} |")
        print()
    per_request = per_request_costs(*paths)
    profiles = sorted({p for p, _, _ in per_request}, key=lambda p: (PROFILE_ORDER.get(p, 9), p))
    for profile in profiles:
        mine = {(s, t): cost for (p, s, t), cost in per_request.items() if p == profile}
        # Loopback servers first, then in-process drivers; green-tea's two forms first within each.
        servers = sorted({s for s, _ in mine},
                         key=lambda s: (s.endswith("-inproc"), not s.startswith("green-tea"), s != same_mode_green_tea(s), s))
        print(f"profile `{profile}`")
        print()
        print("| binary | instructions / request | allocations / request | green-tea (macro form) vs it |")
        print("|---|---|---|---|")
        for server in servers:
            ours = mine.get((same_mode_green_tea(server), "callgrind"))
            ir = mine.get((server, "callgrind"), float("nan"))
            allocs = mine.get((server, "dhat"), float("nan"))
            ratio = (ours / ir) if ours else float("nan")
            print(f"| {server} | {ir:,.0f} | {allocs:.1f} | {ratio:.2f}x |")
        print()


def rounds(ours, *paths):
    """Several runs of callgrind.sh over the same binaries, each path one run (a round): per
    profile and binary, the median and range of its per-request figures over the rounds, and
    the median and range of the ratio `ours` / it, paired within each round. For the servers
    whose figures move from run to run by more than a comparison's margin (the SQLite write
    route's, whose threads hand each request to each other)."""
    runs = [per_request_costs(path) for path in paths]
    profiles = sorted({p for run in runs for p, _, _ in run}, key=lambda p: (PROFILE_ORDER.get(p, 9), p))
    for profile in profiles:
        servers = sorted({s for run in runs for p, s, _ in run if p == profile}, key=lambda s: (s != ours, s))
        print(f"profile `{profile}`, {len(runs)} rounds")
        print()
        print(f"| binary | instructions / request: median | min | max | allocations: median | {ours} / it, paired: median | min | max |")
        print("|---|---|---|---|---|---|---|---|")
        for server in servers:
            ir = [run[(profile, server, "callgrind")] for run in runs if (profile, server, "callgrind") in run]
            allocs = [run[(profile, server, "dhat")] for run in runs if (profile, server, "dhat") in run]
            ratios = [run[(profile, ours, "callgrind")] / run[(profile, server, "callgrind")]
                      for run in runs if (profile, ours, "callgrind") in run and (profile, server, "callgrind") in run]
            print(f"| {server} | {statistics.median(ir):,.0f} | {min(ir):,.0f} | {max(ir):,.0f} | "
                  f"{statistics.median(allocs):.1f} | {statistics.median(ratios):.3f}x | {min(ratios):.3f}x | {max(ratios):.3f}x |")
        print()


if __name__ == "__main__":
    {"http": http, "callgrind": callgrind, "check": check, "rounds": rounds}[sys.argv[1]](*sys.argv[2:])
