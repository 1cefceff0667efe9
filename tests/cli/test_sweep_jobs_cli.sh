#!/bin/sh
# tests/cli/test_sweep_jobs_cli.sh GAR — `gar sweep`'s default --jobs is the
# number of CPUs the process may run on (its affinity mask), not the machine's
# online count: under `taskset -c 0` it runs one worker.
set -u
. "$(dirname "$0")/lib.sh"
data=$(cd "$(dirname "$0")/../../data" && pwd)
command -v taskset >/dev/null 2>&1 || { echo "no taskset command: skipped"; exit 77; }

cat >"$tmp/tiny.sweep" <<SPEC
gar-sweep v1
trace gen:steady:waits=20,seed=1
plan block
estimator adl
host $data/hosts/dev-vm.host
mode open
seed 1 2
SPEC

# jobs_under CPULIST DB: the jobs a default sweep reports under taskset -c CPULIST.
jobs_under() {
    taskset -c "$1" "$gar" sweep "$tmp/tiny.sweep" --db "$tmp/$2" --quiet >"$tmp/out" 2>"$tmp/err" \
        || fail "the sweep under taskset -c $1 failed: $(head -c 300 "$tmp/err")"
    sed -n 's/^jobs: //p' "$tmp/out"
}

# The first two CPUs of this shell's mask ("0-3,6" lists 0 1 2 3 6).
cpus=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | while IFS=- read -r lo hi; do
    i=$lo
    while [ "$i" -le "${hi:-$lo}" ]; do echo "$i"; i=$((i + 1)); done
done | head -n 2)
first=$(echo "$cpus" | sed -n 1p)
second=$(echo "$cpus" | sed -n 2p)
[ "$(jobs_under "$first" one.db)" = 1 ] || fail "under taskset -c $first the default was not 1 job: $(cat "$tmp/out")"
# Two allowed CPUs, where this process may have two.
if [ -n "$second" ]; then
    [ "$(jobs_under "$first,$second" two.db)" = 2 ] \
        || fail "under taskset -c $first,$second the default was not 2 jobs: $(cat "$tmp/out")"
fi
# An explicit --jobs still wins over the mask.
taskset -c "$first" "$gar" sweep "$tmp/tiny.sweep" --db "$tmp/three.db" --jobs 3 --quiet >"$tmp/out" 2>&1
grep -q '^jobs: 3$' "$tmp/out" || fail "--jobs 3 under one CPU did not run 3 jobs"

[ $failures -eq 0 ] || exit 1
echo "all checks passed"
