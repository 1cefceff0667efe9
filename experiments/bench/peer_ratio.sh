#!/bin/sh
# experiments/bench/peer_ratio.sh GAR [PEER [RUNS]] — how many times faster
# than a plain-Python model of the same replay gar simulates flag+predict,
# per wait and end to end.
#
# PEER (or $GAR_PEER when the argument is left out) is a Python script that
# replays a gar-trace v1 CSV for one plan and prints its metrics, invoked as
# `python3 PEER TRACE PLAN`.  Generates one steady trace of a million waits
# (`gar gen steady --waits 1000000`, seed 1), then RUNS times (default 5),
# interleaved so that both meet the same load, times four commands on it:
#
#   peer        python3 PEER TRACE PLAN
#   peer_stop   python3 PEER TRACE no-such-plan: reads the trace, then
#               refuses the plan, before its first wait
#   gar         gar replay TRACE --plan PLAN --host waitpkg.host (the bundled
#               host with a word wait, so that flag runs as flag)
#   gar_stop    the same with --fault hang@0: its first wait hangs and the
#               replay ends at that wait's deadline, a few steps later; gar
#               reads its trace as a stream, so this run has read only the
#               first block of rows, and gar's "waits" cost below includes
#               reading the CSV (the peer's does not): the per-wait ratio
#               leans against gar
#
# each whole (start-up, reading the CSV, replaying, printing).  The best of
# each counts (noise only ever adds), in CPU seconds: user + system of the
# process and its children (on a shared machine wall time counts the other
# processes' turns too).  The waits' cost is a program's whole run less its
# stopped run: what its replay loop, quantiles and report cost.  Prints the
# four, the waits' costs, and two ratios, peer over gar: per wait (the
# waits' costs) and end to end (the whole runs).  GAR should be a release
# build (`meson setup build-rel -Dbuildtype=release`).  Nothing is
# asserted: it prints what it measured.
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
trace=$tmp/steady.csv
"$gar" gen steady --waits 1000000 --seed 1 --out "$trace" >/dev/null

# timed NAME WANT-STATUS COMMAND...: runs COMMAND, its output into
# $tmp/NAME.out, and appends its CPU seconds (user + system of the child and
# its children) to $tmp/NAME.times; refuses a run that exits otherwise than
# WANT-STATUS (0, or "fail" for any non-zero status).
timed() {
    python3 - "$tmp" "$@" <<'PY'
import resource, subprocess, sys
tmp, name, want, cmd = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
with open("%s/%s.out" % (tmp, name), "w") as f:
    rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
if (rc != 0) != (want == "fail"):
    sys.exit("peer_ratio.sh: %s exited %d (output: %s/%s.out)" % (name, rc, tmp, name))
with open("%s/%s.times" % (tmp, name), "a") as f:
    f.write("%.4f\n" % cpu)
PY
}

i=0
while [ "$i" -lt "$runs" ]; do
    timed peer 0 python3 "$peer" "$trace" "$plan"
    timed peer_stop fail python3 "$peer" "$trace" no-such-plan
    timed gar 0 "$gar" replay "$trace" --plan "$plan" --host "$here/data/hosts/waitpkg.host"
    timed gar_stop fail "$gar" replay "$trace" --plan "$plan" \
        --host "$here/data/hosts/waitpkg.host" --fault hang@0
    i=$((i + 1))
done
grep -q '^waits: 1000000$' "$tmp/gar.out" ||
    { echo "peer_ratio.sh: gar replay did not replay a million waits" >&2; exit 1; }
grep -q "'waits': 1000000" "$tmp/peer.out" ||
    { echo "peer_ratio.sh: the peer did not replay a million waits" >&2; exit 1; }
grep -q 'error 16' "$tmp/gar_stop.out" ||
    { echo "peer_ratio.sh: gar's stopped run did not end at its first wait" >&2; exit 1; }

best() { sort -n "$tmp/$1.times" | head -n 1; }
echo "plan: $plan"
echo "trace: gar gen steady --waits 1000000 --seed 1"
echo "runs: $runs of each, interleaved; load average after: $(uptime | sed 's/.*load average: *//')"
echo "peer_reports: $(tr -d "{}' " <"$tmp/peer.out" | tr ',' '\n' | grep '^waits_per_s:')"
awk -v p="$(best peer)" -v ps="$(best peer_stop)" -v g="$(best gar)" -v gs="$(best gar_stop)" '
BEGIN {
    printf "peer_cpu_s: whole %.3f stopped %.3f waits %.3f\n", p, ps, p - ps
    printf "gar_cpu_s: whole %.3f stopped %.3f waits %.3f\n", g, gs, g - gs
    printf "gar_waits_per_cpu_s: %.0f\n", 1000000 / (g - gs)
    printf "ratio_per_wait: %.1f\n", (p - ps) / (g - gs)
    printf "ratio_end_to_end: %.1f\n", p / g
}'
