#!/bin/sh
# tests/cli/test_gen_import_cli.sh GAR — `gar gen` and `gar import` from the
# shell: outputs, determinism, exit codes, and untouched files on failure.
# The fixtures are tests/fixtures/, found from this script's own place.
set -u
. "$(dirname "$0")/lib.sh"
fixtures=$(cd "$(dirname "$0")/../fixtures" && pwd)

# --- gen ---
expect 0 "$gar" gen jitter --waits 50 --seed 9
cp "$tmp/out" "$tmp/a.csv"
expect 0 "$gar" gen jitter --seed 9 --waits 50
cmp -s "$tmp/out" "$tmp/a.csv" || fail "same seed gave different bytes"
expect 0 "$gar" gen jitter --waits 50 --seed 10
cmp -s "$tmp/out" "$tmp/a.csv" && fail "another seed gave the same bytes"
[ "$(head -n 1 "$tmp/a.csv")" = "# gar-trace v1" ] || fail "gen output lacks the magic line"
[ "$(grep -c '^1,' "$tmp/a.csv")" -eq 50 ] || fail "gen jitter --waits 50 did not write 50 rows"

expect 0 "$gar" gen decode --waits 20 --seed 1 --param rows_max=8 --out "$tmp/d.csv"
grep -q '^out: ' "$tmp/out" || fail "gen --out printed no out: line"
grep -q '^point,submit_ns,start_ns,done_ns,rows$' "$tmp/d.csv" || fail "decode has no rows column"
expect 0 "$gar" gen decode --waits 20 --seed 1 --param rows_max=8
cmp -s "$tmp/out" "$tmp/d.csv" || fail "--out and stdout differ"

expect 0 "$gar" gen --help
for word in steady jitter bimodal drift decode residual_us=2000 prefill_p=0.1 --waits --seed; do
    grep -q -- "$word" "$tmp/out" || fail "gen --help does not show $word"
done

expect 2 "$gar" gen
grep -q '^error 11 (Usage)' "$tmp/err" || fail "gen without KIND is not a usage error"
expect 2 "$gar" gen wobble
grep -q '^error 9 (InvalidArgument)' "$tmp/err" || fail "unknown kind not refused with code 9"
expect 2 "$gar" gen steady --param nope=1
expect 2 "$gar" gen steady --waits 0
expect 2 "$gar" gen steady --waits many
expect 2 "$gar" gen steady --frobnicate

# A refused run leaves an existing output as it was, and no temporary file.
echo "keep me" >"$tmp/keep.csv"
expect 2 "$gar" gen steady --param residual_us=-1 --out "$tmp/keep.csv"
[ "$(cat "$tmp/keep.csv")" = "keep me" ] || fail "a refused gen touched its --out file"
expect 2 "$gar" gen steady --out "$tmp/no/such/dir/x.csv"
grep -q '^error 12 (Io)' "$tmp/err" || fail "an unwritable --out is not an Io error"

# A gen killed before its rename (kill -9) leaves FILE.tmp.XXXXXX, a trace
# no one holds a lock on: the next gen --out FILE removes it.  A file of
# that name that is not a trace (a user's) stays.
"$gar" gen steady --waits 100000000 --out "$tmp/big.csv" >/dev/null 2>&1 &
pid=$!
# Killed once its temporary file holds the head it writes at once: the
# file is made a moment before the head is in it, and a kill between the
# two leaves an empty file, which no cleaner can tell is a trace.
tries=0
until f=$(ls "$tmp" | grep '^big\.csv\.tmp\.') &&
      [ "$(head -c 14 "$tmp/$f" 2>/dev/null)" = "# gar-trace v1" ] || [ $tries -ge 100000 ]; do
    tries=$((tries + 1))
done
kill -9 $pid
wait $pid 2>/dev/null
killed=$(ls "$tmp" | grep '^big\.csv\.tmp\.') || fail "the killed gen left no temporary file"
[ "$(head -n 1 "$tmp/$killed")" = "# gar-trace v1" ] ||
    fail "a gen's temporary file does not begin as a trace"
printf 'my notes\n' >"$tmp/big.csv.tmp.Us3r00"
expect 0 "$gar" gen steady --waits 5 --out "$tmp/big.csv"
[ ! -e "$tmp/$killed" ] || fail "gen --out left a killed gen's temporary file"
[ -e "$tmp/big.csv.tmp.Us3r00" ] || fail "gen --out removed a file that is not a trace"
rm -f "$tmp/big.csv" "$tmp/big.csv.tmp.Us3r00"

# --- import kineto ---
expect 0 "$gar" import kineto "$fixtures/kineto/event_sync.json"
grep -q '^waits: 4$' "$tmp/err" || fail "import did not count 4 waits on stderr"
grep -q '^skipped_no_gpu_op: 1$' "$tmp/err" || fail "import did not count the idle stream sync"
tail -n 4 "$tmp/out" >"$tmp/rows"
cat >"$tmp/want" <<'ROWS'
8072867669459855690,0,0,94000,7
4736720261508363923,100000,110000,107000,7
15370667951839086975,170000,185000,680000,7
514176635145694834,179000,700000,780000,7
ROWS
cmp -s "$tmp/rows" "$tmp/want" || fail "kineto rows differ: $(cat "$tmp/rows")"

# Copy calls that returned before their copy ended are no waits, counted by reason.
expect 0 "$gar" import kineto "$fixtures/kineto/early_return_copy.json"
grep -q '^skipped_returned_early: 3$' "$tmp/err" || fail "early-returned copies not counted"
grep -q '^# sync calls 7, waits 4, .*, returned early 3$' "$tmp/out" ||
    fail "the header does not count the early-returned copies"
# A profile with no wait is refused, pointing at the what-if that it still has.
printf '%s\n' '{"traceEvents": [' \
    '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 0, "dur": 5, "args": {"correlation": 1}},' \
    '{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 10, "dur": 90, "args": {"device": 0, "stream": 7, "correlation": 1}}' \
    ']}' >"$tmp/nowait.json"
expect 2 "$gar" import kineto "$tmp/nowait.json"
grep -q 'no host call waited for GPU work.*--wait-on kernel' "$tmp/err" ||
    fail "the no-wait refusal does not suggest --wait-on kernel: $(cat "$tmp/err")"
expect 0 "$gar" import kineto "$tmp/nowait.json" --wait-on kernel
grep -q '^waits: 1$' "$tmp/err" || fail "the suggested --wait-on kernel made no row"

# ... and a killed import's, compressed or not.
printf '# gar-trace v1\npoint,submit_ns,start_ns,done_ns\n' >"$tmp/k.csv.tmp.Ab3xYz"
printf '\037\213\010 cut short' >"$tmp/k.csv.gz.tmp.Gz1234"
expect 0 "$gar" import kineto "$fixtures/kineto/float_ts.json.gz" --out "$tmp/k.csv.gz"
[ ! -e "$tmp/k.csv.gz.tmp.Gz1234" ] || fail "import --out left a killed import's temporary file"
expect 0 "$gar" import kineto "$fixtures/kineto/float_ts.json.gz" --out "$tmp/k.csv"
[ ! -e "$tmp/k.csv.tmp.Ab3xYz" ] || fail "import --out left a killed import's temporary file"
grep -q '^59000,59000,69001,7$' "$tmp/k.csv" 2>/dev/null ||
    grep -q ',59000,59000,69001,7$' "$tmp/k.csv" || fail "gz import lost the ns digits"

echo "keep me" >"$tmp/keep.csv"
printf '{"traceEvents": [' >"$tmp/bad.json"
expect 2 "$gar" import kineto "$tmp/bad.json" --out "$tmp/keep.csv"
grep -q '^error 13 (InvalidTrace)' "$tmp/err" || fail "bad JSON is not InvalidTrace"
[ "$(cat "$tmp/keep.csv")" = "keep me" ] || fail "a refused import touched its --out file"
expect 2 "$gar" import kineto "$tmp/none.json"
grep -q '^error 12 (Io)' "$tmp/err" || fail "a missing file is not an Io error"
expect 2 "$gar" import chrome "$fixtures/kineto/event_sync.json"

# A 2.0-era profile: inferred streams by default, today's strict rule with --no-infer.
expect 0 "$gar" import kineto "$fixtures/kineto/train_pt20.json"
grep -q '^waits: 174$' "$tmp/err" || fail "the pre-2.1 profile did not keep 174 waits"
grep -q '^inferred_stream: 144$' "$tmp/err" || fail "inferred_stream not on stderr"
grep -q '^# sync calls 178, waits 174, inferred_stream 144;' "$tmp/out" ||
    fail "inferred_stream not in the header"
expect 0 "$gar" import kineto "$fixtures/kineto/train_pt20.json" --no-infer
grep -q '^waits: 30$' "$tmp/err" || fail "--no-infer did not restore the strict count"
# Two ranks: rank-qualified streams, listed in the header.
expect 0 "$gar" import kineto "$fixtures/kineto/event_sync.json" "$fixtures/kineto/event_sync.json"
grep -q '^waits: 8$' "$tmp/err" || fail "two ranks did not make twice the waits"
grep -q '^# ranks: 0 1$' "$tmp/out" || fail "the header does not list the ranks"
grep -q '^# stream 1: rank 1 device 0 stream 7$' "$tmp/out" || fail "rank 1's stream not named"
# What the rows wait on is in the header; --wait-on kernel makes a row per kernel.
grep -q '^# wait on: sync (the synchronizing calls the profile recorded)$' "$tmp/out" ||
    fail "the header does not say the rows wait on sync calls"
expect 0 "$gar" import kineto "$fixtures/kineto/train_pt21.json" --wait-on kernel
grep -q '^kernels: 624$' "$tmp/err" || fail "--wait-on kernel did not count 624 kernels"
grep -q '^waits: 624$' "$tmp/err" || fail "--wait-on kernel did not make 624 waits"
grep -q '^# imported by: gar import kineto train_pt21.json --wait-on kernel$' "$tmp/out" ||
    fail "the header does not give --wait-on kernel"
grep -q "^# wait on: kernel (a what-if: every kernel's end, from its launch call's return)$" \
    "$tmp/out" || fail "the header does not say the rows wait on kernels"
grep -q '^# kernels 624, waits 624, inferred_stream 0;' "$tmp/out" || fail "kernel counts line"
expect 0 "$gar" import kineto "$fixtures/kineto/pt22_no_stream.json" --wait-on kernel
grep -q '^2478821943304894980,0,5000,110000,7$' "$tmp/out" || fail "the gemm kernel's row"
expect 2 "$gar" import kineto "$fixtures/kineto/train_pt21.json" --wait-on everything
grep -q '^error 11 (Usage)' "$tmp/err" || fail "an unknown --wait-on is not a usage error"
# A PyTorch 2.2 profile whose device-wide sync has stream 4294967295.
expect 0 "$gar" import kineto "$fixtures/kineto/pt22_no_stream.json"
grep -q '^waits: 3$' "$tmp/err" || fail "the 2^32-1 stream profile did not make 3 waits"
# Bytes after the gzip data are refused at their byte; two members are one text.
if command -v gzip >/dev/null 2>&1; then
    gzip -c "$fixtures/kineto/event_sync.json" >"$tmp/t.json.gz"
    size=$(wc -c <"$tmp/t.json.gz" | tr -d ' ')
    printf 'junk' >>"$tmp/t.json.gz"
    expect 2 "$gar" import kineto "$tmp/t.json.gz"
    grep -q "^error 13 (InvalidTrace): .*t.json.gz:byte $((size + 1)): bytes after the gzip data" \
        "$tmp/err" || fail "trailing bytes after gzip not refused at their byte: $(cat "$tmp/err")"
    head -c 900 "$fixtures/kineto/event_sync.json" | gzip -c >"$tmp/two.json.gz"
    tail -c +901 "$fixtures/kineto/event_sync.json" | gzip -c >>"$tmp/two.json.gz"
    expect 0 "$gar" import kineto "$tmp/two.json.gz"
    grep -q '^waits: 4$' "$tmp/err" || fail "two gzip members were not read as one text"
else
    echo "gzip not found: gzip CLI checks skipped"
fi
expect 2 "$gar" import kineto "$fixtures/kineto/event_sync.json" --process 3
expect 2 "$gar" import nsys a.sqlite b.sqlite
expect 2 "$gar" import kineto
expect 0 "$gar" import --help

# --- compressed traces and standard input ---
# gen and import write .csv.gz when --out ends so: valid gzip holding the
# very bytes of the plain output.
hosts=$(cd "$fixtures/../../data/hosts" && pwd)
plan='poll+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8'
expect 0 "$gar" gen decode --waits 3000 --seed 4 --out "$tmp/g.csv"
expect 0 "$gar" gen decode --waits 3000 --seed 4 --out "$tmp/g.csv.gz"
[ "$(head -c 2 "$tmp/g.csv.gz" | od -An -tx1 | tr -d ' ')" = "1f8b" ] ||
    fail "gen --out g.csv.gz did not write gzip"
expect 0 "$gar" import kineto "$fixtures/kineto/train_pt21.json" --out "$tmp/k.csv"
expect 0 "$gar" import kineto "$fixtures/kineto/train_pt21.json" --out "$tmp/k.csv.gz"
grep -q '^waits: 178$' "$tmp/out" || grep -q '^out: ' "$tmp/out" || fail "import .gz printed no out:"
if command -v gzip >/dev/null 2>&1; then
    gzip -t "$tmp/g.csv.gz" || fail "gen's .csv.gz is not gzip -t clean"
    gzip -t "$tmp/k.csv.gz" || fail "import's .csv.gz is not gzip -t clean"
    gzip -dc "$tmp/g.csv.gz" | cmp -s - "$tmp/g.csv" || fail "gen's .csv.gz is not its plain text"
    gzip -dc "$tmp/k.csv.gz" | cmp -s - "$tmp/k.csv" || fail "import's .csv.gz is not its plain text"
fi
# Replaying the compressed trace, or either form on standard input, gives the
# plain trace's output byte for byte (the `trace:` line names the input).
expect 0 "$gar" replay "$tmp/g.csv" --plan "$plan" --host "$hosts/waitpkg.host"
sed '/^trace: /d' "$tmp/out" >"$tmp/plain.out"
[ -s "$tmp/plain.out" ] || fail "replay of the plain trace printed nothing"
expect 0 "$gar" replay "$tmp/g.csv.gz" --plan "$plan" --host "$hosts/waitpkg.host"
sed '/^trace: /d' "$tmp/out" | cmp -s - "$tmp/plain.out" || fail "replay of .csv.gz differs"
expect 0 sh -c '"$1" replay - --plan "$2" --host "$3" <"$4"' sh "$gar" "$plan" \
    "$hosts/waitpkg.host" "$tmp/g.csv.gz"
grep -q '^trace: -$' "$tmp/out" || fail "replay - does not name its trace '-'"
sed '/^trace: /d' "$tmp/out" | cmp -s - "$tmp/plain.out" || fail "replay - of gzip differs"
expect 0 sh -c '"$1" replay - --plan "$2" --host "$3" <"$4"' sh "$gar" "$plan" \
    "$hosts/waitpkg.host" "$tmp/g.csv"
sed '/^trace: /d' "$tmp/out" | cmp -s - "$tmp/plain.out" || fail "replay - of plain text differs"
# Import to standard output, then replay from standard input.
expect 0 sh -c '"$1" import kineto "$2" 2>/dev/null | "$1" replay - --plan block --host "$3"' \
    sh "$gar" "$fixtures/kineto/train_pt21.json" "$hosts/dev-vm.host"
grep -q '^waits: 178$' "$tmp/out" || fail "import | replay - did not replay 178 waits"
# A cut-short, corrupt or padded gzip is refused with the trace code and the
# byte; a fault of the text inside by its uncompressed line.
size=$(wc -c <"$tmp/g.csv.gz" | tr -d ' ')
head -c $((size - 8)) "$tmp/g.csv.gz" >"$tmp/cut.csv.gz"
expect 2 "$gar" replay "$tmp/cut.csv.gz" --plan block --host "$hosts/dev-vm.host"
grep -q "^error 13 (InvalidTrace): .*cut.csv.gz:byte $((size - 8 + 1)): the gzip data is cut short" \
    "$tmp/err" || fail "a cut-short gzip is not refused at its end: $(cat "$tmp/err")"
{ cat "$tmp/g.csv.gz"; printf 'pad'; } >"$tmp/pad.csv.gz"
expect 2 "$gar" replay "$tmp/pad.csv.gz" --plan block --host "$hosts/dev-vm.host"
grep -q "^error 13 (InvalidTrace): .*pad.csv.gz:byte $((size + 1)): bytes after the gzip data" \
    "$tmp/err" || fail "bytes after the gzip are not refused at their byte: $(cat "$tmp/err")"
if command -v gzip >/dev/null 2>&1; then
    printf '# gar-trace v1\npoint,submit_ns,start_ns,done_ns\n1,0,5,9\n2,3,x,9\n' | gzip -c \
        >"$tmp/text.csv.gz"
    expect 2 "$gar" replay "$tmp/text.csv.gz" --plan block --host "$hosts/dev-vm.host"
    grep -q "^error 13 (InvalidTrace): .*text.csv.gz:4: column 3: start_ns 'x' is not a decimal" "$tmp/err" ||
        fail "a fault inside a gzip trace is not placed by its line: $(cat "$tmp/err")"
    expect 2 sh -c '"$1" replay - --plan block --host "$2" <"$3"' sh "$gar" "$hosts/dev-vm.host" \
        "$tmp/text.csv.gz"
    grep -q "^error 13 (InvalidTrace): .*standard input:4: column 3:" "$tmp/err" ||
        fail "a fault on standard input does not name it: $(cat "$tmp/err")"
fi
# A Kineto profile on standard input ('-'), plain or gzip, makes the rows the
# file does; '-' once only, and never for nsys (an SQLite file).
expect 0 sh -c '"$1" import kineto - <"$2"' sh "$gar" "$fixtures/kineto/float_ts.json.gz"
grep -q '^# imported by: gar import kineto -$' "$tmp/out" || fail "import - does not say '-'"
grep -v '^# imported by:' "$tmp/out" >"$tmp/stdin.rows"
expect 0 "$gar" import kineto "$fixtures/kineto/float_ts.json.gz"
grep -v '^# imported by:' "$tmp/out" | cmp -s - "$tmp/stdin.rows" ||
    fail "import kineto - differs from the file's import"
expect 2 sh -c '"$1" import kineto - - <"$2"' sh "$gar" "$fixtures/kineto/event_sync.json"
grep -q "^error 11 (Usage): import: '-' (standard input) is given more than once" "$tmp/err" ||
    fail "'-' twice is not refused clearly: $(cat "$tmp/err")"
expect 2 sh -c '"$1" import nsys - </dev/null' sh "$gar"
grep -q "^error 11 (Usage): import: nsys reads an SQLite file" "$tmp/err" ||
    fail "nsys - is not refused clearly: $(cat "$tmp/err")"
expect 2 sh -c 'printf "{\"traceEvents\": [" | "$1" import kineto -' sh "$gar"
grep -q "^error 13 (InvalidTrace): standard input:1: column" "$tmp/err" ||
    fail "a fault on standard input does not name it: $(cat "$tmp/err")"
# Rows are streamed to standard output, but a profile that cannot make a
# trace (times spanning more than 2^63 ns) is refused before the first byte.
ev='{"ph":"X","cat":"%s","name":"%s","pid":%s,"tid":%s,"ts":%s,"dur":4,"args":{%s"correlation":%s}}'
{
    printf '{"traceEvents":['
    for base in 0 10000000000000000; do
        printf "$ev," cuda_runtime cudaLaunchKernel 1 1 "$((base + 0))" '' "$((base / 5000000000000000 + 1))"
        printf "$ev," kernel k 0 7 "$((base + 5))" '"device":0,"stream":7,' "$((base / 5000000000000000 + 1))"
        printf "$ev," cuda_runtime cudaStreamSynchronize 1 1 "$((base + 6))" '' "$((base / 5000000000000000 + 2))"
        [ "$base" -eq 0 ] && sep=, || sep=
        printf "$ev$sep" cuda_sync 'Stream Sync' 0 7 "$((base + 7))" '"device":0,"stream":7,' \
            "$((base / 5000000000000000 + 2))"
    done
    printf ']}\n'
} >"$tmp/span.json"
expect 2 "$gar" import kineto "$tmp/span.json"
grep -q "^error 13 (InvalidTrace): .*span.json: its waits span more than 9223372036854775807 ns" \
    "$tmp/err" || fail "a profile spanning over 2^63 ns is not refused: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && fail "a refused import wrote to standard output: $(head -c 200 "$tmp/out")"
# A refused import leaves an existing .csv.gz whole, and nothing beside it.
cp "$tmp/k.csv.gz" "$tmp/keep.csv.gz"
expect 2 "$gar" import kineto "$tmp/bad.json" --out "$tmp/keep.csv.gz"
cmp -s "$tmp/keep.csv.gz" "$tmp/k.csv.gz" || fail "a refused import touched its .csv.gz"
ls "$tmp" | grep -q 'keep.csv.gz.tmp' && fail "a refused import left a temporary file"
# A sweep spec may come from standard input; a trace '-' in a sweep may not.
printf 'gar-sweep v1\ntrace %s\nplan block\nestimator none\nhost %s\nmode open\nseed 1\n' \
    "$tmp/g.csv.gz" "$hosts/dev-vm.host" >"$tmp/s.sweep"
expect 0 sh -c '"$1" sweep - --dry-run <"$2"' sh "$gar" "$tmp/s.sweep"
grep -q '^runs: 1$' "$tmp/out" || fail "sweep - did not read the spec from standard input"
printf 'gar-sweep v1\ntrace -\nplan block\nestimator none\n' >"$tmp/dash.sweep"
expect 2 sh -c '"$1" sweep - --dry-run <"$2"' sh "$gar" "$tmp/dash.sweep"
grep -q "^error 9 (InvalidArgument): -: argument trace cannot be standard input in a sweep" \
    "$tmp/err" || fail "a trace '-' in a sweep spec is not refused clearly: $(cat "$tmp/err")"
for verb in gen import replay verify sweep; do
    expect 0 "$gar" $verb --help
    grep -q -e '\.gz' "$tmp/out" || fail "$verb --help does not mention .gz"
done

# --- import nsys (needs the sqlite3 shell to build the fixture) ---
if command -v sqlite3 >/dev/null 2>&1; then
    sqlite3 "$tmp/r.sqlite" <"$fixtures/nsys/two_streams.sql" || fail "fixture SQL does not load"
    expect 0 "$gar" import nsys "$tmp/r.sqlite" --no-infer
    grep -q '^waits: 3$' "$tmp/err" || fail "nsys import --no-infer did not count 3 waits"
    grep -q '^inferred_stream: 0$' "$tmp/err" || fail "--no-infer inferred a stream"
    expect 0 "$gar" import nsys "$tmp/r.sqlite"
    grep -q '^waits: 4$' "$tmp/err" || fail "nsys import did not count 4 waits"
    grep -q '^inferred_stream: 1$' "$tmp/err" || fail "the event sync's stream was not inferred"
    grep -q '^# processes: 0$' "$tmp/out" || fail "the header does not list the process"
    grep -q '^514176635145694834,5200,5400,8500,7$' "$tmp/out" || fail "nsys device sync row"
    expect 0 "$gar" import nsys "$tmp/r.sqlite" --wait-on kernel
    grep -q '^kernels: 3$' "$tmp/err" || fail "nsys --wait-on kernel did not count 3 kernels"
    grep -q '^5790093507316341374,0,200,4500,7$' "$tmp/out" || fail "nsys kernel row"
    sqlite3 "$tmp/e.sqlite" <"$fixtures/nsys/early_return_copy.sql" || fail "fixture SQL does not load"
    expect 0 "$gar" import nsys "$tmp/e.sqlite"
    grep -q '^skipped_returned_early: 3$' "$tmp/err" || fail "nsys early-returned copies not counted"
    grep -q '^waits: 4$' "$tmp/err" || fail "nsys early_return_copy did not keep 4 waits"
    sqlite3 "$tmp/p.sqlite" <"$fixtures/nsys/two_processes.sql" || fail "fixture SQL does not load"
    expect 0 "$gar" import nsys "$tmp/p.sqlite"
    grep -q '^# processes: 100 200$' "$tmp/out" || fail "the header does not list the processes"
    grep -q '^# stream 3: process 200 device 0 stream 13$' "$tmp/out" || fail "stream 3 not named"
    expect 0 "$gar" import nsys "$tmp/p.sqlite" --process 100
    grep -q '^waits: 2$' "$tmp/err" || fail "--process 100 did not keep its 2 waits"
    grep -q '^4736720261508363923,0,300,4500,7$' "$tmp/out" || fail "--process 100 stream 7 row"
    expect 2 "$gar" import nsys "$tmp/p.sqlite" --process 300
    grep -q 'process 300 is not in the export' "$tmp/err" || fail "an absent pid not refused"
    expect 2 "$gar" import nsys "$tmp/p.sqlite" --process x
    sqlite3 "$tmp/r.sqlite" "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME"
    expect 2 "$gar" import nsys "$tmp/r.sqlite"
    grep -q 'CUPTI_ACTIVITY_KIND_RUNTIME' "$tmp/err" || fail "missing table not named"
else
    echo "sqlite3 shell not found: nsys CLI checks skipped"
fi

[ "$failures" -eq 0 ] || exit 1
echo "ok"
