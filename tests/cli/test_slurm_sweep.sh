#!/bin/sh
# tests/cli/test_slurm_sweep.sh GAR [B_SANITIZE] — a sweep on a real Slurm:
# a one-node cluster (munged, slurmctld, slurmd, all private to this test)
# runs a small sweep as a 4-task array through experiments/slurm/submit.sh;
# the merged database must hold, row for row, what one `gar sweep` of the
# same spec stores.  A second sweep has one shard made to fail: its merge
# must refuse, naming the shard, and `submit.sh --only` must recover it.
#
# Needs root and apt (it installs Slurm and munge when they are missing);
# skips (77) without them, and in a sanitizer build (B_SANITIZE other than
# 'none'): it tests the scripts and Slurm, not gar's memory, which the
# sweep_cli test covers there, and one cluster a checkout is enough.
set -u
gar=$1
sanitize=${2:-none}
src=$(cd "$(dirname "$0")/../.." && pwd)
data=$src/data
submit=$src/experiments/slurm/submit.sh

skip() {
    echo "skipped: $*"
    exit 77
}
[ "$sanitize" = none ] || skip "a sanitizer build (b_sanitize=$sanitize)"
[ "$(id -u)" -eq 0 ] || skip "not root: a Slurm cluster needs root"
command -v apt-get >/dev/null 2>&1 || skip "no apt-get to install Slurm with"
command -v sqlite3 >/dev/null 2>&1 || skip "no sqlite3 command"
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v slurmd >/dev/null 2>&1 \
    || ! command -v sbatch >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y \
        --no-install-recommends slurmctld slurmd slurm-client munge >/tmp/gar-slurm-apt.$$ 2>&1 \
        || skip "cannot install Slurm: $(tail -n 2 /tmp/gar-slurm-apt.$$)"
    rm -f /tmp/gar-slurm-apt.$$
fi

gar=$(cd "$(dirname "$gar")" && pwd)/$(basename "$gar")
tmp=$(mktemp -d /tmp/gar-slurm.XXXXXX)
# munged wants every folder above its socket searchable by all.
chmod 755 "$tmp"
mkdir -m 700 "$tmp/munge"
mkdir -m 755 "$tmp/run" "$tmp/state" "$tmp/spool" "$tmp/log"
export SLURM_CONF="$tmp/slurm.conf"
pids=

# Stops every job, then every daemon this test started, and removes its files.
cleanup() {
    if [ -n "$pids" ]; then
        ids=$(squeue -h -o %i 2>/dev/null)
        # shellcheck disable=SC2086 # one word per job id
        [ -z "$ids" ] || scancel $ids 2>/dev/null
        wait_until_no_jobs 20 || true
        for pid in $pids; do
            kill "$pid" 2>/dev/null
        done
        for pid in $pids; do
            wait "$pid" 2>/dev/null
        done
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# wait_until_no_jobs SECONDS: 0 once the queue is empty, 1 at the deadline.
wait_until_no_jobs() {
    deadline=$(($(date +%s) + $1))
    while [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do
        [ "$(date +%s)" -lt "$deadline" ] || return 1
        sleep 0.2
    done
    return 0
}

# A TCP port nothing listens on, from FIRST upwards.
free_port() {
    p=$1
    while command -v ss >/dev/null 2>&1 && [ -n "$(ss -Hltn "sport = :$p" 2>/dev/null)" ]; do
        p=$((p + 1))
    done
    echo "$p"
}

# --- the cluster: munge, one controller, one node ---
mungekey -c -k "$tmp/munge/munge.key" 2>"$tmp/log/mungekey" \
    || { echo "FAIL: mungekey: $(cat "$tmp/log/mungekey")" >&2; exit 1; }
munged -F --socket="$tmp/run/munge.sock" --key-file="$tmp/munge/munge.key" \
    --pid-file="$tmp/run/munged.pid" --log-file="$tmp/log/munged.log" \
    --seed-file="$tmp/munge/seed" >"$tmp/log/munged.out" 2>&1 &
pids="$pids $!"

host=$(hostname -s)
# The node as slurmd sees it (CPUs, sockets, cores, memory), under our name.
hardware=$(slurmd -C | head -n 1 | sed 's/^NodeName=[^ ]* //')
ctld_port=$(free_port $((20000 + $$ % 20000)))
slurmd_port=$(free_port $((ctld_port + 1)))
: >"$tmp/plugstack.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=gartest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/run/munge.sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
PlugStackConfig=$tmp/plugstack.conf
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 $hardware State=UNKNOWN
PartitionName=gar Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

# munged is up once its socket answers.
deadline=$(($(date +%s) + 10))
until munge -S "$tmp/run/munge.sock" -n >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] \
        || { echo "FAIL: munged did not start: $(tail -n 3 "$tmp/log/munged.out")" >&2; exit 1; }
    sleep 0.2
done
slurmctld -D -f "$SLURM_CONF" >"$tmp/log/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -f "$SLURM_CONF" >"$tmp/log/slurmd.out" 2>&1 &
pids="$pids $!"
deadline=$(($(date +%s) + 30))
until [ "$(sinfo -h -n "$host" -o %t 2>/dev/null)" = idle ]; do
    [ "$(date +%s)" -lt "$deadline" ] || {
        echo "FAIL: the node did not come up idle: $(sinfo -h -o %t 2>&1)" >&2
        tail -n 5 "$tmp/log/slurmctld.out" "$tmp/log/slurmd.out" >&2
        exit 1
    }
    sleep 0.2
done

# --- the sweep: 2 traces x (block, poll, flag+predict x 2 estimators) x 2 hosts x 2 seeds ---
FLAGDL="flag:park_us=100,backstop_us=1000+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8"
cat >"$tmp/small.sweep" <<SPEC
gar-sweep v1
trace gen:steady:waits=300,seed=1 gen:jitter:waits=300,seed=2
plan block poll $FLAGDL
estimator adl half-min
host $data/hosts/dev-vm.host $data/hosts/waitpkg.host
mode open
seed 1 2
SPEC
total=32

# Every stored column but those that say when and how fast a run ran, in key order.
rows() {
    cols=$(sqlite3 "$1" "SELECT group_concat(name, ',') FROM pragma_table_info('runs')
                         WHERE name NOT IN ('id', 'run_ns', 'finished_unix')")
    sqlite3 "$1" "SELECT $cols FROM runs ORDER BY trace, plan, estimator, host, mode, seed"
}

# job_state ID: the job's state as the controller keeps it (COMPLETED, FAILED...).
job_state() {
    scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'
}

# submitted FILE WHAT: the job id submit.sh printed as 'WHAT: ID (...)'.
submitted() {
    sed -n "s/^$2: \\([0-9]*\\).*/\\1/p" "$1"
}

# The whole sweep on this machine, the reference.
"$gar" sweep "$tmp/small.sweep" --db "$tmp/single.db" --jobs 2 --quiet >"$tmp/single.out" 2>&1 \
    || fail "the single-machine sweep failed: $(tail -n 3 "$tmp/single.out")"
rows "$tmp/single.db" >"$tmp/single.rows"
[ "$(wc -l <"$tmp/single.rows")" -eq $total ] || fail "the single-machine sweep did not store $total runs"

# A second output folder where shard 2 cannot open its database (not SQLite),
# and shard 1 is already complete: its task must find it so and run nothing.
mkdir "$tmp/broken"
echo "not a database" >"$tmp/broken/shard-2-of-4.db"
"$gar" sweep "$tmp/small.sweep" --db "$tmp/broken/shard-1-of-4.db" --shard 1/4 --quiet \
    >"$tmp/shard1.out" 2>&1 || fail "could not run shard 1/4 ahead: $(tail -n 3 "$tmp/shard1.out")"

# From another folder, with GAR naming the build's gar: the jobs must not
# depend on where they were submitted from.
mkdir "$tmp/elsewhere"
(cd "$tmp/elsewhere" && GAR=$gar sh "$submit" 4 ../small.sweep ../good --cpus-per-task=1) \
    >"$tmp/good.submit" 2>&1 || fail "submit.sh failed: $(cat "$tmp/good.submit")"
(cd "$tmp/elsewhere" && GAR=$gar sh "$submit" 4 ../small.sweep ../broken --cpus-per-task=1) \
    >"$tmp/broken.submit" 2>&1 || fail "submit.sh failed: $(cat "$tmp/broken.submit")"
good_merge=$(submitted "$tmp/good.submit" merge_job)
broken_array=$(submitted "$tmp/broken.submit" array_job)
broken_merge=$(submitted "$tmp/broken.submit" merge_job)
wait_until_no_jobs 120 || fail "the jobs did not end within 120 s: $(squeue -h 2>&1)"

# The good sweep: merged, and the same rows as the single machine's.
[ "$(job_state "$good_merge")" = COMPLETED ] \
    || fail "the merge ended $(job_state "$good_merge"): $(cat "$tmp"/good/merge-*.log 2>&1)"
rows "$tmp/good/sweep.db" >"$tmp/good.rows"
cmp -s "$tmp/single.rows" "$tmp/good.rows" \
    || fail "the merged runs differ from the single machine's: $(diff "$tmp/single.rows" "$tmp/good.rows" | head -n 4)"
for k in 0 1 2 3; do
    grep -q "^shard: $k/4$" "$tmp/good/shard-$k-of-4.done" 2>/dev/null \
        || fail "array task $k did not run shard $k/4"
done

# The broken sweep: shard 2 failed, so the merge ran (afterany), refused and
# named the shard and how to resubmit it; shard 1 resumed a complete database.
[ "$(job_state "${broken_array}_2")" = FAILED ] || fail "the poisoned shard's task did not fail"
[ "$(job_state "$broken_merge")" = FAILED ] || fail "the merge after a failed shard did not fail"
[ ! -e "$tmp/broken/sweep.db" ] || fail "the merge after a failed shard wrote a database"
grep -q 'shards not complete: 2 (of 0\.\.3)' "$tmp"/broken/merge-*.log \
    || fail "the merge did not name shard 2: $(cat "$tmp"/broken/merge-*.log)"
grep -q -- "submit.sh --only 2 4 " "$tmp"/broken/merge-*.log \
    || fail "the merge did not say how to resubmit shard 2"
grep -q '^ran: 0$' "$tmp/broken/shard-1-of-4.done" 2>/dev/null \
    || fail "the task of a complete shard ran runs again"

# Recovery: repair, resubmit shard 2 alone with a new merge.
rm "$tmp/broken/shard-2-of-4.db"
(cd "$tmp/elsewhere" && GAR=$gar sh "$submit" --only 2 4 ../small.sweep ../broken --cpus-per-task=1) \
    >"$tmp/again.submit" 2>&1 || fail "submit.sh --only failed: $(cat "$tmp/again.submit")"
grep -q '^array_job: [0-9]* (shards 2 of 4)$' "$tmp/again.submit" || fail "--only did not submit shard 2 alone"
again_merge=$(submitted "$tmp/again.submit" merge_job)
wait_until_no_jobs 60 || fail "the resubmitted jobs did not end within 60 s"
[ "$(job_state "$again_merge")" = COMPLETED ] || fail "the merge after the resubmission did not complete"
rows "$tmp/broken/sweep.db" >"$tmp/again.rows" 2>/dev/null
cmp -s "$tmp/single.rows" "$tmp/again.rows" || fail "the recovered sweep's runs differ from the single machine's"

# Refusals of submit.sh before anything is submitted.
GAR=$gar sh "$submit" 0 "$tmp/small.sweep" "$tmp/x" >"$tmp/out" 2>&1 && fail "submit.sh took 0 shards"
grep -q 'shard count N must be a whole number >= 1' "$tmp/out" || fail "no reason for 0 shards: $(cat "$tmp/out")"
GAR=$gar sh "$submit" --only 4 4 "$tmp/small.sweep" "$tmp/x" >"$tmp/out" 2>&1 && fail "submit.sh took shard 4 of 4"
GAR=$tmp/no-gar sh "$submit" 4 "$tmp/small.sweep" "$tmp/x" >"$tmp/out" 2>&1 && fail "submit.sh took a missing gar"
[ -z "$(squeue -h -o %i)" ] || fail "a refused submit.sh submitted jobs"

if [ $failures -ne 0 ]; then
    tail -n 20 "$tmp/log/slurmctld.out" >&2
    exit 1
fi
echo "all checks passed"
