#!/bin/sh
# experiments/slurm/submit.sh — submits a gar sweep to Slurm: its N shards as
# one job array (sweep.sbatch) and the merge (merge.sbatch) after the array.
#
#   experiments/slurm/submit.sh [--only K[,K...]] N SPEC OUTDIR [SBATCH_OPTION...]
#
# N is the shard count; task K of the array (SLURM_ARRAY_TASK_ID) runs shard
# K/N into OUTDIR/shard-K-of-N.db.  The merge depends on the array with
# afterany, so it runs once every task has ended, checks that every shard is
# complete and either fills OUTDIR/sweep.db or names the missing shards.
# --only resubmits just the listed shards (each resumes its database), with a
# new merge after them: the recovery after a failed task.
#
# gar is $GAR when set, else build/experiments/gar of the checkout this script
# is in, else 'gar' on PATH; its absolute path is handed to the jobs in $GAR,
# since Slurm runs copies of the job scripts, wherever it keeps them.  SPEC
# and OUTDIR are made absolute here, so the jobs do not depend on the folder
# they start in.  SBATCH_OPTIONs (--partition=P, --time=T, --cpus-per-task=C,
# ...) go to both submissions; the merge always takes one CPU.  The array's
# default is 2 CPUs a task (sweep.sbatch), one gar worker per CPU.  Logs go to
# OUTDIR/sweep-JOB_K.log and OUTDIR/merge-JOB.log.
set -eu

me=submit.sh
usage() {
    echo "usage: $me [--only K[,K...]] N SPEC OUTDIR [SBATCH_OPTION...]" >&2
    exit 2
}
only=
case ${1:-} in
--only) [ $# -ge 2 ] || usage; only=$2; shift 2 ;;
--only=*) only=${1#--only=}; shift ;;
--help | -h) sed -n '2,21s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
[ $# -ge 3 ] || usage
n=$1
spec=$2
out=$3
shift 3

case $n in
'' | *[!0-9]* | 0*) echo "$me: the shard count N must be a whole number >= 1, not '$n'" >&2; exit 2 ;;
esac
if [ -n "$only" ]; then
    case $only in
    *[!0-9,]* | ,* | *, | *,,*) echo "$me: --only takes shard numbers separated by commas, not '$only'" >&2; exit 2 ;;
    esac
    for k in $(echo "$only" | tr ',' ' '); do
        [ "$k" -lt "$n" ] || { echo "$me: --only: $k is not a shard of $n (0..$((n - 1)))" >&2; exit 2; }
    done
    array=$only
else
    array=0-$((n - 1))
fi

here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${GAR:-}" ]; then
    gar=$GAR
elif [ -x "$here/../../build/experiments/gar" ]; then
    gar=$here/../../build/experiments/gar
else
    gar=gar
fi
case $gar in
*/*) if [ ! -x "$gar" ] || [ -d "$gar" ]; then
         echo "$me: '$gar' is not an executable gar" >&2
         exit 2
     fi
     gar=$(cd "$(dirname "$gar")" && pwd)/$(basename "$gar") ;;
*) resolved=$(command -v "$gar" 2>/dev/null) || { echo "$me: no gar on PATH: set GAR to its path" >&2; exit 2; }
   gar=$resolved ;;
esac
[ -f "$spec" ] || { echo "$me: no sweep spec '$spec'" >&2; exit 2; }
spec=$(cd "$(dirname "$spec")" && pwd)/$(basename "$spec")
mkdir -p "$out"
out=$(cd "$out" && pwd)
command -v sbatch >/dev/null 2>&1 || { echo "$me: no sbatch on PATH" >&2; exit 2; }

export GAR="$gar" GAR_SLURM_DIR="$here"
array_job=$(sbatch --parsable --array="$array" --output="$out/sweep-%A_%a.log" "$@" \
    "$here/sweep.sbatch" "$n" "$spec" "$out")
array_job=${array_job%%;*}
echo "array_job: $array_job (shards $array of $n)"
if ! merge_job=$(sbatch --parsable --dependency="afterany:$array_job" \
        --output="$out/merge-%j.log" "$@" --job-name=gar-merge --cpus-per-task=1 \
        "$here/merge.sbatch" "$n" "$spec" "$out"); then
    echo "$me: the merge was not submitted; once the array ends, run:" >&2
    echo "  GAR=$gar sbatch $here/merge.sbatch $n $spec $out" >&2
    exit 1
fi
merge_job=${merge_job%%;*}
echo "merge_job: $merge_job (after the array, into $out/sweep.db)"
echo "gar: $gar"
