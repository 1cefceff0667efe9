#!/bin/sh
# experiments/bench/long_replay.sh GAR [SIZES] — what a long `gar replay`
# costs: its peak resident set and its rate, at 1 M, 10 M and 100 M waits
# (SIZES, default "1000000 10000000 100000000").
#
# Each size is a `gar gen steady` trace replayed under flag+predict on the
# bundled waitpkg host.  Up to 10 M waits the trace is written to a file
# first and replayed from it; past that it is never written: `gar gen ... |
# gar replay - ...`, generated as it is replayed (100 M waits would be 4 GB
# of text).  The peak is the replay's own (wait4's ru_maxrss of its process,
# by the peak-rss helper built beside gar), the rate its waits over its wall
# time (reading and parsing the trace included).  Prints one line a size:
#
#     waits N from file: peak_rss X MiB (R x the first size), W M waits/s, quantiles: ...
#
# with R each size's peak against the first size's, from this same run.
# A release build is what the figures in sim/README.md were measured with.
set -eu
gar=${1:?usage: long_replay.sh GAR [SIZES]}
sizes=${2:-1000000 10000000 100000000}
peak_rss=$(dirname "$gar")/peak-rss
[ -x "$peak_rss" ] || { echo "no peak-rss beside $gar (build the project)" >&2; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
host=$here/data/hosts/waitpkg.host
plan='flag:park_us=100,backstop_us=1000+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

first_kib=
for n in $sizes; do
    if [ "$n" -le 10000000 ]; then
        "$gar" gen steady --waits "$n" --out "$tmp/trace.csv" >/dev/null
        "$peak_rss" "$gar" replay "$tmp/trace.csv" --plan "$plan" --host "$host" \
            >"$tmp/out" 2>"$tmp/rss"
        rm -f "$tmp/trace.csv"
        how="from file"
    else
        "$gar" gen steady --waits "$n" | "$peak_rss" "$gar" replay - --plan "$plan" --host "$host" \
            >"$tmp/out" 2>"$tmp/rss"
        how="piped from gar gen"
    fi
    kib=$(sed -n 's/^peak_rss_kib: //p' "$tmp/rss")
    wall=$(sed -n 's/^wall_s: //p' "$tmp/rss")
    waits=$(sed -n 's/^waits: //p' "$tmp/out")
    quantiles=$(sed -n 's/^quantiles: //p' "$tmp/out")
    [ "$waits" = "$n" ] || { echo "the replay of $n waits counted '$waits'" >&2; exit 1; }
    [ -n "$first_kib" ] || first_kib=$kib
    awk -v n="$n" -v how="$how" -v kib="$kib" -v wall="$wall" -v q="$quantiles" -v first="$first_kib" \
        'BEGIN { printf "waits %d %s: peak_rss %.1f MiB (%.2f x the first size), %.2f M waits/s, quantiles: %s\n",
                        n, how, kib / 1024, kib / first, n / wall / 1e6, q }'
done
