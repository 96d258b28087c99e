"""Summarises bench/http.sh and bench/callgrind.sh results into the tables of docs/benchmarks.md."""

import csv
import statistics
import sys
from collections import defaultdict

OURS = "green-tea-server"


def http(path):
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    by_round = defaultdict(dict)
    for row in rows:
        by_round[row["round"]][row["server"]] = row
    others = sorted({r["server"] for r in rows} - {OURS})
    print(f"| green-tea / X (req/s, paired per round) | min | median | max |")
    print("|---|---|---|---|")
    for other in others:
        ratios = [float(r[OURS]["req_per_s"]) / float(r[other]["req_per_s"]) for r in by_round.values() if OURS in r and other in r]
        print(f"| vs {other} | {min(ratios):.3f} | {statistics.median(ratios):.3f} | {max(ratios):.3f} |")
    print()
    print("| server | median req/s | median p50 ms | median p99 ms |")
    print("|---|---|---|---|")
    for server in [OURS] + others:
        mine = [r for r in rows if r["server"] == server]
        med = lambda key: statistics.median(float(r[key]) for r in mine)
        print(f"| {server} | {med('req_per_s'):.0f} | {med('p50_ms'):.3f} | {med('p99_ms'):.3f} |")


def same_mode_green_tea(server):
    """The green-tea row measured the same way as `server`: `X-server` (loopback) is compared
    with green-tea-server, `X-inproc` (in process, no socket) with green-tea-inproc."""
    return "green-tea-" + server.rsplit("-", 1)[-1]


def per_request_costs(path):
    """{(server, tool): cost of one request} from a callgrind.sh TSV (difference of two N)."""
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    totals = defaultdict(dict)
    for row in rows:
        totals[(row["server"], row["tool"])][int(row["n"])] = int(row["total"])
    per_request = {}
    for (server, tool), by_n in totals.items():
        (n1, t1), (n2, t2) = sorted(by_n.items())
        per_request[(server, tool)] = (t2 - t1) / (n2 - n1)
    return per_request


def check(path, baseline_path):
    """Fails (exit 1) if a binary in `path` costs more than its baseline: instructions by more
    than the baseline's tolerance, allocations by more than a tenth of one per request."""
    measured = per_request_costs(path)
    failed = False
    compared = 0
    for row in csv.DictReader(open(baseline_path), delimiter="\t"):
        server = row["server"]
        if not any(s == server for s, _ in measured):
            continue  # not asked for this time
        ir = measured.get((server, "callgrind"))
        allocs = measured.get((server, "dhat"))
        if ir is None or allocs is None:
            print(f"{server}: measured by one tool only")
            failed = True
            continue
        compared += 1
        limit = float(row["instructions"]) * (1 + float(row["tolerance"]))
        verdict = "ok"
        if ir > limit or allocs > float(row["allocations"]) + 0.1:
            verdict = "REGRESSION"
            failed = True
        print(f"{server}: {ir:,.0f} instructions (baseline {float(row['instructions']):,.0f}, limit {limit:,.0f}), "
              f"{allocs:.1f} allocations (baseline {row['allocations']}): {verdict}")
    if compared == 0:
        print("nothing measured has a baseline")
        failed = True
    sys.exit(1 if failed else 0)


def callgrind(path):
    per_request = per_request_costs(path)
    # Loopback servers first, then in-process drivers; green-tea first within each.
    servers = sorted({s for s, _ in per_request}, key=lambda s: (s.endswith("-inproc"), s != same_mode_green_tea(s), s))
    print("| server | instructions / request | allocations / request | instructions vs green-tea |")
    print("|---|---|---|---|")
    for server in servers:
        ours = per_request.get((same_mode_green_tea(server), "callgrind"))
        ir = per_request.get((server, "callgrind"), float("nan"))
        allocs = per_request.get((server, "dhat"), float("nan"))
        ratio = (ours / ir) if ours else float("nan")
        print(f"| {server} | {ir:,.0f} | {allocs:.1f} | green-tea = {ratio:.2f}x |")


if __name__ == "__main__":
    {"http": http, "callgrind": callgrind, "check": check}[sys.argv[1]](*sys.argv[2:])
