#!/bin/sh
# experiments/bench/calibration_stability.sh GAR [CALIBRATIONS [CALIBRATE-OPTION...]]
# — do calibrations of this machine minutes apart say the same thing?
#
# Runs `gar calibrate` CALIBRATIONS times in a row (default 4, about 40 s
# each, so the first and the last are minutes apart), each into a profile of
# its own, with the CALIBRATE-OPTIONs given.  Then replays one jitter trace
# (10 000 waits of 2 ms +- 0.2 ms, seed 3: enough waits that the simulation's
# own sampling moves its p50 and p90 by a few per cent at most) under each
# profile for poll, poll+predict and block, and prints one row per plan and
# profile: the simulated overshoot p50 and p90.  Then, per plan and quantile,
# the spread over the profiles, (highest - lowest) / lowest.  A plan is
# stable when both of its spreads are below 15 %; the machine's calibration
# is, when all three plans are.  Exit status 0 when it is.  Run it on an
# otherwise idle machine: what else runs shows up as instability.
set -eu
gar=${1:?usage: calibration_stability.sh GAR [CALIBRATIONS [CALIBRATE-OPTION...]]}
runs=${2:-4}
shift
[ $# -gt 0 ] && shift
[ "$runs" -ge 2 ] 2>/dev/null ||
    { echo "calibration_stability.sh: CALIBRATIONS must be 2 or more" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$gar" gen jitter --waits 10000 --seed 3 --out "$tmp/jitter.csv" >/dev/null
predict='poll+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8'

i=1
while [ "$i" -le "$runs" ]; do
    load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
    began=$(date -u +%H:%M:%S)
    "$gar" calibrate --out "$tmp/$i.host" "$@" >"$tmp/$i.cal" 2>&1 ||
        { echo "calibration_stability.sh: gar calibrate failed:" >&2; cat "$tmp/$i.cal" >&2; exit 1; }
    noisy=$(grep -c '^# noisy:' "$tmp/$i.host" || true)
    echo "calibration $i: began $began UTC, load $load before, $noisy noisy measurements"
    i=$((i + 1))
done

echo "| plan | calibration | sim p50 (ns) | sim p90 (ns) |"
echo "|---|---|---|---|"
status=0
for plan in poll "$predict" block; do
    name=$plan
    [ "$plan" = "$predict" ] && name=poll+predict
    i=1
    : >"$tmp/values"
    while [ "$i" -le "$runs" ]; do
        "$gar" replay "$tmp/jitter.csv" --plan "$plan" --host "$tmp/$i.host" >"$tmp/replay"
        awk -v name="$name" -v i="$i" '/^overshoot_ns: / {
            printf "| %s | %s | %s | %s |\n", name, i, $3, $5 }' "$tmp/replay"
        awk '/^overshoot_ns: / { print $3, $5 }' "$tmp/replay" >>"$tmp/values"
        i=$((i + 1))
    done
    # spread_p50 / spread_p90: (highest - lowest) / lowest over the profiles.
    awk -v name="$name" '
        NR == 1 { lo50 = hi50 = $1; lo90 = hi90 = $2 }
        { if ($1 < lo50) lo50 = $1; if ($1 > hi50) hi50 = $1
          if ($2 < lo90) lo90 = $2; if ($2 > hi90) hi90 = $2 }
        END {
            s50 = lo50 > 0 ? (hi50 - lo50) / lo50 : 0
            s90 = lo90 > 0 ? (hi90 - lo90) / lo90 : 0
            ok = s50 < 0.15 && s90 < 0.15
            printf "spread %s: p50 %.1f %% p90 %.1f %% (%s)\n", name, 100 * s50, 100 * s90,
                ok ? "stable" : "unstable"
            exit ok ? 0 : 1
        }' "$tmp/values" >>"$tmp/spreads" || status=1
done
cat "$tmp/spreads"
[ "$status" -eq 0 ] && echo "stable: every plan's p50 and p90 within 15 %" ||
    echo "unstable: some plan's p50 or p90 moved by 15 % or more"
exit "$status"
