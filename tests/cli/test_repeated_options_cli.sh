#!/bin/sh
# tests/cli/test_repeated_options_cli.sh GAR SOURCE_ROOT — an option given
# twice is refused (error 11 naming it, nothing written) by every verb,
# whatever its spelling, instead of silently taking the last value; the
# options whose repeating is documented (--param, --without, --tolerance)
# still repeat, but set each key once.  Every verb's option loop goes through
# the shared gar_cli_getopt, so a new verb gets the rule too.
set -u
. "$(dirname "$0")/lib.sh"
case $gar in /*) ;; *) gar=$PWD/$gar ;; esac # the refusals run in a scratch folder
src=$2

# refused OPTION ARGS...: exit 2, error 11 naming OPTION, nothing on stdout.
refused() {
    option=$1
    shift
    (cd "$tmp" && "$gar" "$@") >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "$*: exit $rc, not 2"
    grep -q "^error 11 (Usage): .*option '$option' is given more than once" "$tmp/err" ||
        fail "$*: not refused naming $option: $(cat "$tmp/err")"
    [ ! -s "$tmp/out" ] || fail "$*: wrote to stdout: $(head -c 200 "$tmp/out")"
}

"$gar" gen steady --waits 5 --out "$tmp/t.csv" >/dev/null || fail "gen failed"

refused --jobs sweep x.sweep --db a.db --jobs 1 --jobs 2
refused --jobs sweep x.sweep --db a.db --jobs=1 --jobs=2
refused --db sweep x.sweep --db a.db --db b.db
refused --shard sweep x.sweep --db a.db --shard 1/2 --shard 2/2
refused --waits gen steady --waits 3 --waits 4
refused --seed gen steady --seed 3 --seed 4
refused --out gen steady --out a.csv --out b.csv
refused --plan replay "$tmp/t.csv" --plan poll --plan block
refused --plan replay "$tmp/t.csv" --pl poll --plan block # an abbreviation is the same option
refused --json replay "$tmp/t.csv" --plan poll --json --json
refused --deadline-ns replay "$tmp/t.csv" --plan poll --deadline-ns 5 --deadline-ns 6
refused --db plot --db a.db --db b.db --out p
refused --out report --db a.db --out r --out s
refused --out import kineto x.json --out a.csv --out b.csv
refused --rows plan --rows 3 --rows 4 block
refused --samples calibrate --samples 3 --samples 4
refused --plan estimate --plan poll --plan block exact:1000
refused --seed verify "$tmp/t.csv" --plan poll --seed 1 --seed 2
[ ! -e "$tmp/a.db" ] && [ ! -e "$tmp/a.csv" ] && [ ! -e "$tmp/b.csv" ] ||
    fail "a refused command left a file"

# Documented repeats still work, each key once.
"$gar" gen steady --waits 3 --param gap_us=5 --param residual_us=7 >"$tmp/out" 2>"$tmp/err" ||
    fail "--param with two keys was refused: $(cat "$tmp/err")"
"$gar" gen steady --waits 3 --param gap_us=5 --param gap_us=7 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "gap_us=7 sets a parameter given before" "$tmp/err" ||
    fail "--param gave gap_us twice unrefused: $(cat "$tmp/err")"
"$gar" plan --without word-wait --without io-uring block >"$tmp/out" 2>"$tmp/err" ||
    fail "--without twice was refused: $(cat "$tmp/err")"
"$gar" verify "$tmp/t.csv" --plan poll --tolerance ks_d=0.5 --tolerance ks_d=0.6 \
    >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "^error 11 (Usage): verify: --tolerance sets a key given before" "$tmp/err" ||
    fail "--tolerance gave ks_d twice unrefused: $(cat "$tmp/err")"

# No verb parses its options around the shared loop.
if grep -n 'getopt_long *(' "$src"/experiments/*/*.c | grep -v '^[^:]*/cli\.c:'; then
    fail "a verb calls getopt_long itself: use gar_cli_getopt (experiments/cli/cli.h)"
fi
# And every verb states its options as a table rather than writing the loop.
if grep -n 'gar_cli_getopt *(' "$src"/experiments/*/*.c | grep -v '^[^:]*/cli\(_options\)\?\.c:'; then
    fail "a verb writes its own option loop: state its options as a table (experiments/cli/cli_options.h)"
fi

[ "$failures" -eq 0 ] || exit 1
echo "repeated options: ok"
