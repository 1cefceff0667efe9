#!/bin/sh
# experiments/bench/auto_strict.sh DB [RATIO] — auto against every fixed arm
# of a sweep database, by one strict rule, and the table that sums it up.
#
# The rule, the same for every arm: an arm meets a budget B on a workload
# (trace x host x mode) when every one of the workload's seeds ran ok under
# it and the mean of its p99 overshoots over those seeds is at most B.  A
# failed seed, or a missing one, means the arm does not meet B.  A cell is a
# workload and one B of the database's `auto:p99_us=B` plans; it counts
# where some fixed arm (any plan but auto, under any estimator but the
# oracle, which knows each completion in advance: a bound, not an arm a
# program can run) meets B.
# There, auto must meet B too, and its mean busy time is compared with the
# cheapest fixed arm that meets B: "within" means at most RATIO (default
# 1.25) times it.
#
# Prints one line per cell where auto misses B or is not within RATIO, then
# `cells: N`, `met: N`, `within: N (P %)` and `worst_miss: X` (auto's mean
# p99 over B at its worst cell, 0 when it meets every one), and
# `cells_no_fixed: N` (cells where no fixed arm meets B: not judged).
# Exit status 0, or 2 for a database it cannot read.
set -eu
db=${1:?usage: auto_strict.sh DB [RATIO]}
ratio=${2:-1.25}
[ -r "$db" ] || { echo "auto_strict: cannot read $db" >&2; exit 2; }
exec python3 - "$db" "$ratio" <<'PY'
import sqlite3, sys
from collections import defaultdict

db, ratio = sys.argv[1], float(sys.argv[2])
con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
rows = con.execute(
    "SELECT trace, trace_name, host, host_name, mode, plan, estimator, seed, status,"
    " overshoot_p99_ns, busy_ns FROM runs").fetchall()

seeds = defaultdict(set)            # workload -> every seed any arm ran
arms = defaultdict(dict)            # (workload, plan, estimator) -> seed -> (ok, p99, busy)
names = {}
for trace, tname, host, hname, mode, plan, est, seed, status, p99, busy in rows:
    w = (trace, host, mode)
    names[w] = "%s @ %s (%s)" % (tname, hname, mode)
    seeds[w].add(seed)
    arms[(w, plan, est)][seed] = (status == "ok", p99, busy)

def judged(w, key):
    """(meets-able, mean p99, mean busy): None when a seed failed or is missing."""
    runs = arms[key]
    if set(runs) != seeds[w] or not all(ok for ok, _, _ in runs.values()):
        return None
    n = len(runs)
    return (sum(r[1] for r in runs.values()) / n, sum(r[2] for r in runs.values()) / n)

budgets = sorted({int(p.split("=")[1]) for (_, p, _) in arms if p.startswith("auto:p99_us=")})
cells = met = within = no_fixed = 0
worst = 0.0
for w in sorted(seeds, key=lambda w: names[w]):
    fixed = [k for k in arms
             if k[0] == w and not k[1].startswith("auto") and k[2] != "oracle"]
    for b in budgets:
        bns = b * 1000
        meeting = [j for j in (judged(w, k) for k in fixed) if j is not None and j[0] <= bns]
        if not meeting:
            no_fixed += 1
            continue
        cells += 1
        cheapest = min(j[1] for j in meeting)
        a = judged(w, (w, "auto:p99_us=%d" % b, "-"))
        if a is None or a[0] > bns:
            worst = max(worst, float("inf") if a is None else a[0] / bns)
            print("miss: %s B=%d us: auto p99 %s, a fixed arm meets it" %
                  (names[w], b, "failed" if a is None else "%.1f us" % (a[0] / 1000)))
            continue
        met += 1
        if a[1] <= ratio * cheapest:
            within += 1
        else:
            print("costly: %s B=%d us: auto busy %.0f ns, cheapest fixed %.0f ns (%.2fx)" %
                  (names[w], b, a[1], cheapest, a[1] / cheapest if cheapest else float("inf")))
print("cells: %d" % cells)
print("met: %d" % met)
print("within: %d (%.1f %%)" % (within, 100.0 * within / cells if cells else 0.0))
print("worst_miss: %.2f" % worst)
print("cells_no_fixed: %d" % no_fixed)
PY
