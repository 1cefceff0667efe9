#!/bin/sh
# tests/cli/test_real_traces.sh GAR — every trace in data/traces/real/ is what
# scripts/make-real-traces makes today from the fixtures, text for text (a
# .gz is compared uncompressed: its deflate bytes depend on zlib's version),
# and the folder holds nothing the script does not make.
set -u
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
real=$root/data/traces/real
mkdir "$tmp/made"
sh "$root/scripts/make-real-traces" "$gar" "$tmp/made" 2>"$tmp/make.err" ||
    fail "make-real-traces failed: $(cat "$tmp/make.err")"

text() {
    case $1 in
    *.gz) gzip -dc "$1" ;;
    *) cat "$1" ;;
    esac
}

count=0
for made in "$tmp"/made/*; do
    [ -e "$made" ] || continue
    name=$(basename "$made")
    if [ ! -f "$real/$name" ]; then
        fail "data/traces/real/$name is not checked in (make-real-traces makes it)"
        continue
    fi
    text "$made" >"$tmp/want"
    text "$real/$name" >"$tmp/have" || { fail "$name does not decompress"; continue; }
    cmp -s "$tmp/want" "$tmp/have" ||
        fail "data/traces/real/$name is stale: rerun scripts/make-real-traces"
    count=$((count + 1))
done
for have in "$real"/*.csv "$real"/*.csv.gz; do
    [ -e "$have" ] || continue
    name=$(basename "$have")
    [ -f "$tmp/made/$name" ] && continue
    if grep -q "no sqlite3 shell: $name not made" "$tmp/make.err"; then
        echo "no sqlite3 shell: $name not checked"
    else
        fail "data/traces/real/$name is not made by make-real-traces"
    fi
done
[ "$count" -gt 0 ] || fail "no real traces compared"
[ "$failures" -eq 0 ] || exit 1
echo "ok: $count traces"
