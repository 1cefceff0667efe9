#!/bin/sh
# experiments/bench/peer_ratio.sh GAR [PEER [RUNS]] — how many times faster
# than a plain-Python model of the same replay gar simulates flag+predict.
#
# PEER (or $GAR_PEER when the argument is left out) is a Python script that
# replays a gar-trace v1 CSV for one plan and prints its metrics, invoked as
# `python3 PEER TRACE PLAN`.  Generates one steady trace of a million waits
# (`gar gen steady --waits 1000000`, seed 1), then RUNS times (default 5),
# interleaved so that both meet the same load, runs the peer and
# `gar replay TRACE --plan PLAN --host waitpkg.host` (the bundled host with a
# word wait, so that flag runs as flag) on it, each whole: reading the CSV,
# replaying, printing.  Prints the best of each — CPU seconds (user + system,
# of the process and its children) and wall seconds — and their ratios, peer
# over gar.  CPU time is the measure: on a shared machine wall time counts
# the other processes' turns too.  GAR should be a release build
# (`meson setup build-rel -Dbuildtype=release`).  Nothing is asserted: it
# prints what it measured.
set -eu
gar=${1:?usage: peer_ratio.sh GAR [PEER [RUNS]] (or PEER in \$GAR_PEER)}
peer=${2:-${GAR_PEER:-}}
runs=${3:-5}
[ -n "$peer" ] || { echo "peer_ratio.sh: no peer: give PEER or set GAR_PEER" >&2; exit 2; }
[ -r "$peer" ] || { echo "peer_ratio.sh: cannot read the peer '$peer'" >&2; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

plan='flag:park_us=100,backstop_us=1000+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8'
"$gar" gen steady --waits 1000000 --seed 1 --out "$tmp/steady.csv" >/dev/null

# timed OUT COMMAND...: runs COMMAND with its output into OUT; prints
# "CPU WALL" in seconds (CPU: user + system of the child and its children).
timed() {
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.perf_counter()
with open(out, "w") as f:
    rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
wall = time.perf_counter() - t0
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
if rc != 0:
    sys.exit("peer_ratio.sh: %s exited %d (output: %s)" % (cmd[0], rc, out))
print("%.4f %.4f" % (cpu, wall))
PY
}

: >"$tmp/peer.times"
: >"$tmp/gar.times"
i=0
while [ "$i" -lt "$runs" ]; do
    timed "$tmp/peer.out" python3 "$peer" "$tmp/steady.csv" "$plan" >>"$tmp/peer.times"
    timed "$tmp/gar.out" "$gar" replay "$tmp/steady.csv" --plan "$plan" \
        --host "$here/data/hosts/waitpkg.host" >>"$tmp/gar.times"
    i=$((i + 1))
done
grep -q '^waits: 1000000$' "$tmp/gar.out" ||
    { echo "peer_ratio.sh: gar replay did not replay a million waits" >&2; exit 1; }

uptime_now=$(uptime | sed 's/.*load average: *//')
best() { sort -n "$1" | head -n 1 | cut -d' ' -f1; }
best_wall() { sort -k2,2n "$1" | head -n 1 | cut -d' ' -f2; }
pc=$(best "$tmp/peer.times")
pw=$(best_wall "$tmp/peer.times")
gc=$(best "$tmp/gar.times")
gw=$(best_wall "$tmp/gar.times")
echo "plan: $plan"
echo "trace: gar gen steady --waits 1000000 --seed 1"
echo "runs: $runs each, interleaved (load average after: $uptime_now)"
echo "peer_says: $(tr -d '{}' <"$tmp/peer.out" | tr ',' '\n' | grep waits_per_s | tr -d " '")"
echo "peer_best_s: cpu $pc wall $pw"
echo "gar_best_s: cpu $gc wall $gw"
awk -v pc="$pc" -v pw="$pw" -v gc="$gc" -v gw="$gw" 'BEGIN {
    printf "gar_waits_per_cpu_s: %.0f\n", 1000000 / gc
    printf "ratio_cpu: %.1f\n", pc / gc
    printf "ratio_wall: %.1f\n", pw / gw
}'
