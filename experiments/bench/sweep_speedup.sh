#!/bin/sh
# experiments/bench/sweep_speedup.sh GAR [WAITS] [SEEDS] — how a sweep scales
# over worker threads, and what share of its time storage takes.
#
# Builds a sweep of 5 traces of WAITS waits (default 100 000) x 20 arms
# (block and three flag plans; flag+predict and a bands plan under eight
# estimators) x the waitpkg host x SEEDS seeds (default 10): 1 000 runs.
# Polling is left out (no poll plan, and a host with a word wait, so flag is
# not resolved to poll): simulating every poll of 100 000 waits would time
# the poll loop, not the sweep.  Runs it into fresh databases with --jobs 1,
# --jobs 2 and, when the machine has more, --jobs ONLINE_CORES, and prints
# each one's wall time and storage share, and the speed-ups, measured in this
# one run.
set -eu
gar=${1:?usage: sweep_speedup.sh GAR [WAITS] [SEEDS]}
waits=${2:-100000}
seeds=${3:-10}
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

seed_list=$(seq 1 "$seeds" | tr '\n' ' ')
F=flag:park_us=100,backstop_us=1000
P=+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8
cat >"$tmp/bench.sweep" <<SPEC
gar-sweep v1
trace gen:steady:waits=$waits,seed=1 gen:jitter:waits=$waits,seed=1
trace gen:bimodal:waits=$waits,seed=1 gen:drift:waits=$waits,seed=1
trace gen:decode:waits=$waits,seed=1
plan block $F flag:park_us=50,backstop_us=1000 flag:park_us=200,backstop_us=2000
plan $F$P
bands block;rows>=32:$F$P
estimator adl none oracle half-min half-mean ewma:alpha=0.25 ewma:alpha=0.5 quantile:q=0.1
host $here/data/hosts/waitpkg.host
mode open
seed $seed_list
SPEC

cores=$(getconf _NPROCESSORS_ONLN)
set -- 1 2
[ "$cores" -gt 2 ] && set -- 1 2 "$cores"
for jobs in "$@"; do
    "$gar" sweep "$tmp/bench.sweep" --db "$tmp/jobs$jobs.db" --jobs "$jobs" --quiet >"$tmp/jobs$jobs.txt"
    runs=$(sed -n 's/^ran: //p' "$tmp/jobs$jobs.txt")
    wall=$(sed -n 's/^wall_s: //p' "$tmp/jobs$jobs.txt")
    share=$(sed -n 's/^storage_share: //p' "$tmp/jobs$jobs.txt")
    echo "jobs $jobs: $runs runs of $waits waits in $wall s (storage share $share)"
done
w1=$(sed -n 's/^wall_s: //p' "$tmp/jobs1.txt")
for jobs in "$@"; do
    [ "$jobs" -eq 1 ] && continue
    w=$(sed -n 's/^wall_s: //p' "$tmp/jobs$jobs.txt")
    awk -v a="$w1" -v b="$w" -v j="$jobs" -v c="$cores" \
        'BEGIN { printf "speed-up jobs %d / jobs 1: %.2f (on %d online cores)\n", j, a / b, c }'
done
