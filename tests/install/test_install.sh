#!/bin/sh
# tests/install/test_install.sh BUILD_DIR SOURCE_DIR SANITIZE COVERAGE FUZZING CC...
# — `meson install` of the build into a temporary folder, then what a user
# gets from it:
#   - the gar command in bin/, answering --version and -V;
#   - the man page gar(1), rendered by `man -l` without a warning, with a
#     section for every verb holding that verb's usage line;
#   - its EXIT STATUS, ENVIRONMENT and FILES sections, ENVIRONMENT naming
#     every variable the sources read (getenv, and the backends' *_ENV names);
#   - the bash completion: sourced in bash, `gar re<TAB>` offers replay and
#     report, `gar replay --pl<TAB>` offers --plan, `gar import <TAB>` the
#     formats kineto and nsys, and an empty word every verb;
#   - the bundled hosts, sweeps and traces in share/gar/, which the installed
#     gar finds from an empty folder: `gar replay data/traces/steady.csv`
#     with its default host, `gar sweep data/sweeps/default.sweep --dry-run`;
#   - gar.pc, naming no folder that does not exist on this machine and no
#     CUDA folder unless <gar/cuda.h> was installed;
#   - an outside program (outside.c) built against it with nothing but
#     pkg-config, linked once to the shared and once to the static libgar,
#     and run; where <gar/uv.h> was installed, examples/uv_await_lines.c
#     (beside SOURCE_DIR's parent) built with `pkg-config --cflags --libs
#     gar-uv` alone, and run;
#   - examples/auto_wait.c built with pkg-config alone and run seeded from
#     the bundled data/hosts/dev-vm.host (the profile read through the
#     installed library), and refusing a file that is no profile with
#     error 15 and exit 2.
# Each installed header is also compiled alone, so none leans on another it
# does not include.
#
# SANITIZE is the build's b_sanitize ("none", "address,undefined", ...) and
# COVERAGE its b_coverage: the outside program is built with the same
# instrumentation, since the installed library needs its runtime.  FUZZING
# is the build's fuzzing option: such a build is skipped (see below).
# Exits 0 on success, 1 on a failure, 77 (skip) where it cannot run.
set -eu
build=$1 src=$2 sanitize=$3 coverage=$4 fuzzing=$5
shift 5
# The rest of the arguments: the compiler command meson uses ("cc",
# "ccache cc", ...).

if [ "$fuzzing" = "true" ]; then
    # -Dfuzzing=true instruments libgar for libFuzzer: a program linking it
    # needs clang's coverage runtime, which no user of the library has.
    echo "install: skipped: a -Dfuzzing=true build's libgar is instrumented for libFuzzer"
    exit 77
fi
for tool in meson pkg-config man bash; do
    if ! command -v "$tool" > /dev/null 2>&1; then
        echo "install: skipped: no $tool on the PATH"
        exit 77
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gar-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
root=$tmp/root

fail() {
    echo "install: FAIL: $1"
    exit 1
}

meson install -C "$build" --no-rebuild --destdir "$root" > "$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; fail "meson install --destdir failed"; }

pc=$(find "$root" -name gar.pc | head -n 1)
[ -n "$pc" ] || fail "no gar.pc was installed"
# The .pc files name the configured prefix, which lies under $root here:
# copies that say so, as a user relocating an installed tree would write.
prefix=$(sed -n 's/^prefix=//p' "$pc")
mkdir "$tmp/pc"
for f in "${pc%/*}"/gar*.pc; do
    sed "s#^prefix=.*#prefix=$root$prefix#" "$f" > "$tmp/pc/${f##*/}"
done
export PKG_CONFIG_PATH="$tmp/pc"

# --- the gar command, its man page and its completion ---
gar=$root$prefix/bin/gar
[ -x "$gar" ] || fail "gar is not installed in $prefix/bin"
"$gar" --version > "$tmp/version" 2>&1 || fail "the installed gar --version: $(cat "$tmp/version")"
grep -qx 'gar [0-9][0-9.]*' "$tmp/version" || fail "gar --version printed: $(cat "$tmp/version")"
"$gar" -V > "$tmp/v" 2>&1 || fail "the installed gar -V: $(cat "$tmp/v")"
cmp -s "$tmp/v" "$tmp/version" || fail "gar -V printed '$(cat "$tmp/v")', not what --version does"
verbs=$("$gar" --help | sed -n '/^verbs:$/,/^$/s/^  \([a-z-]*\) .*/\1/p')
[ -n "$verbs" ] || fail "the installed gar --help lists no verbs"

man_page=$(find "$root" -path '*/man1/gar.1' | head -n 1)
[ -n "$man_page" ] || fail "no man page gar.1 was installed in a man1 folder"
# A wide page, so no line of a help text is broken in two.
MANWIDTH=200 LC_ALL=C man --warnings=w -l "$man_page" > "$tmp/man.txt" 2> "$tmp/man.err" ||
    { cat "$tmp/man.err"; fail "man -l gar.1 failed"; }
[ ! -s "$tmp/man.err" ] || { cat "$tmp/man.err"; fail "man -l gar.1 warned"; }
for verb in $verbs; do
    [ "$verb" = help ] && continue # its help is the overview, the page's DESCRIPTION
    upper=$(echo "$verb" | tr a-z A-Z)
    grep -qx "GAR $upper" "$tmp/man.txt" || fail "the man page has no section GAR $upper"
    usage=$("$gar" "$verb" --help | head -n 1)
    grep -qF -- "$usage" "$tmp/man.txt" || fail "the man page lacks gar $verb's usage line: $usage"
done
for section in "EXIT STATUS" ENVIRONMENT FILES; do
    grep -qx "$section" "$tmp/man.txt" || fail "the man page has no section $section"
done
# Every variable the sources read is in ENVIRONMENT (as its first word on a line).
sed -n '/^ENVIRONMENT$/,/^FILES$/p' "$tmp/man.txt" > "$tmp/env.txt"
top=$src/../..
names=$( (grep -rhoE 'getenv\("[A-Z_]+"\)' "$top/core" "$top/backends" "$top/sim" "$top/experiments" |
          sed 's/getenv("\(.*\)")/\1/'
          grep -rhoE '#define GAR_[A-Z_]+_ENV "[A-Z_]+"' "$top/include" | sed 's/.* "\(.*\)"/\1/') |
        sort -u)
[ -n "$names" ] || fail "found no environment variable in the sources"
for name in $names; do
    grep -qE "^ +$name " "$tmp/env.txt" || fail "the man page's ENVIRONMENT does not list $name"
done

completion=$(find "$root" -path '*/bash-completion/completions/gar' | head -n 1)
[ -n "$completion" ] || fail "no bash completion for gar was installed"
# complete WORDS...: what the completion offers for the last of WORDS, one a line.
complete_words() {
    bash -c '. "$1" || exit 1
             function=$(complete -p gar | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
             [ -n "$function" ] || { echo "no completion function for gar"; exit 1; }
             shift
             COMP_WORDS=("$@")
             COMP_CWORD=$(($# - 1))
             COMP_LINE="$*"
             COMP_POINT=${#COMP_LINE}
             "$function" gar "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
             printf "%s\n" "${COMPREPLY[@]}"' complete_words "$completion" "$@"
}
complete_words gar re > "$tmp/offered" || fail "the completion failed: $(cat "$tmp/offered")"
grep -qx replay "$tmp/offered" || fail "gar re<TAB> does not offer replay: $(cat "$tmp/offered")"
grep -qx report "$tmp/offered" || fail "gar re<TAB> does not offer report: $(cat "$tmp/offered")"
! grep -qv '^re' "$tmp/offered" || fail "gar re<TAB> offers words not starting re: $(cat "$tmp/offered")"
complete_words gar "" > "$tmp/offered" || fail "the completion failed: $(cat "$tmp/offered")"
for verb in $verbs; do
    grep -qx -- "$verb" "$tmp/offered" || fail "gar <TAB> does not offer the verb $verb"
done
complete_words gar replay --pl > "$tmp/offered" || fail "the completion failed: $(cat "$tmp/offered")"
[ "$(cat "$tmp/offered")" = --plan ] || fail "gar replay --pl<TAB> offers '$(cat "$tmp/offered")', not --plan"
complete_words gar import "" > "$tmp/offered" || fail "the completion failed: $(cat "$tmp/offered")"
[ "$(sort "$tmp/offered" | tr '\n' ' ')" = "kineto nsys " ] ||
    fail "gar import <TAB> offers '$(cat "$tmp/offered")', not kineto and nsys"

# --- the bundled data, found by the installed gar from an empty folder ---
share=$root$prefix/share/gar
for f in hosts/dev-vm.host hosts/waitpkg.host sweeps/default.sweep sweeps/auto.sweep \
         traces/steady.csv; do
    [ -f "$share/$f" ] || fail "share/gar/$f is not installed"
done
mkdir "$tmp/empty"
(cd "$tmp/empty" && "$gar" replay data/traces/steady.csv --plan poll) > "$tmp/replay.out" 2>&1 ||
    { cat "$tmp/replay.out"; fail "the installed gar does not find data/traces/steady.csv and its default host"; }
grep -q "^host: .*/share/gar/hosts/dev-vm.host$" "$tmp/replay.out" ||
    { cat "$tmp/replay.out"; fail "the installed gar's default host is not the installed dev-vm.host"; }
(cd "$tmp/empty" && "$gar" sweep data/sweeps/default.sweep --dry-run) > "$tmp/sweep.out" 2>&1 ||
    { cat "$tmp/sweep.out"; fail "the installed gar does not find data/sweeps/default.sweep"; }
grep -q '^runs: [1-9]' "$tmp/sweep.out" || { cat "$tmp/sweep.out"; fail "sweep --dry-run: no runs"; }
[ -z "$(ls -A "$tmp/empty")" ] || fail "reading the bundled data wrote into the working folder"

# --- the library, from pkg-config alone ---
cflags=$(pkg-config --cflags gar) || fail "pkg-config --cflags gar"
libs=$(pkg-config --libs gar) || fail "pkg-config --libs gar"
static_libs=$(pkg-config --static --libs-only-l --libs-only-other gar | sed 's/-lgar //') ||
    fail "pkg-config --static --libs gar"
libdir=$(pkg-config --variable=libdir gar)
incdir=$(pkg-config --variable=includedir gar)
echo "install: cflags: $cflags"
echo "install: libs: $libs"

[ -f "$incdir/gar/gar.h" ] || fail "gar/gar.h is not installed under $incdir"
# What gar.pc says must hold on this machine: each folder it names exists,
# and the CUDA toolkit's is named only where the CUDA header was installed.
for flag in $cflags $libs; do
    case $flag in
    -I* | -L*) [ -d "${flag#-?}" ] || fail "gar.pc names '$flag', a folder this machine lacks" ;;
    esac
done
if [ ! -f "$incdir/gar/cuda.h" ]; then
    case $cflags in
    *cuda*) fail "gar.pc names a CUDA folder, but gar was built without the CUDA backend" ;;
    esac
fi
for f in libgar.a libgar.so; do
    [ -e "$libdir/$f" ] || fail "$f is not installed in $libdir"
done

instrument=""
if [ "$sanitize" != "none" ] && [ -n "$sanitize" ]; then
    instrument="-fsanitize=$sanitize"
fi
if [ "$coverage" = "true" ]; then
    instrument="$instrument --coverage"
fi
warn="-std=c11 -Wall -Wextra -Wpedantic -Werror"

# Each public header on its own (wait_steps.h is a part of wait.h, which
# refuses to be included alone by design).
for h in "$incdir"/gar/*.h; do
    name=${h##*/}
    [ "$name" = wait_steps.h ] && continue
    {
        # libuv's own header needs the POSIX declarations under strict C11,
        # as gar/uv.h says: a user of it defines this first.
        if [ "$name" = uv.h ]; then echo '#define _POSIX_C_SOURCE 200809L'; fi
        printf '#include <gar/%s>\nint gar_outside_unused;\n' "$name"
    } > "$tmp/one.c"
    # shellcheck disable=SC2086
    "$@" $warn $cflags -fsyntax-only "$tmp/one.c" > "$tmp/one.log" 2>&1 ||
        { cat "$tmp/one.log"; fail "<gar/$name> does not compile on its own"; }
done

# shellcheck disable=SC2086
"$@" $warn $instrument $cflags -o "$tmp/outside" "$src/outside.c" $libs $instrument ||
    fail "the outside program does not build against the shared libgar"
if command -v ldd > /dev/null 2>&1; then
    LD_LIBRARY_PATH="$libdir" ldd "$tmp/outside" | grep -q "$libdir/libgar.so" ||
        fail "the outside program is not linked to the installed libgar.so"
fi
LD_LIBRARY_PATH="$libdir" "$tmp/outside" || fail "the outside program failed (shared libgar)"

# shellcheck disable=SC2086
"$@" $warn $instrument $cflags -o "$tmp/outside-static" "$src/outside.c" "$libdir/libgar.a" \
    $static_libs $instrument || fail "the outside program does not build against the static libgar"
"$tmp/outside-static" || fail "the outside program failed (static libgar)"

# An auto plan seeded from a gar calibrate profile, through the installed
# library only.
examples=$src/../../examples
# shellcheck disable=SC2086
"$@" $warn $instrument $cflags -o "$tmp/auto_wait" "$examples/auto_wait.c" $libs $instrument ||
    fail "examples/auto_wait.c does not build against the installed libgar"
LD_LIBRARY_PATH="$libdir" "$tmp/auto_wait" --host "$src/../../data/hosts/dev-vm.host" 1000 50 \
    > "$tmp/auto.log" 2>&1 || { cat "$tmp/auto.log"; fail "examples/auto_wait --host dev-vm.host failed"; }
grep -qx 'seeded_from: .*/dev-vm.host' "$tmp/auto.log" ||
    { cat "$tmp/auto.log"; fail "examples/auto_wait did not say it was seeded from dev-vm.host"; }
status=0
LD_LIBRARY_PATH="$libdir" "$tmp/auto_wait" --host "$src/../../data/hosts/README.md" 1000 50 \
    > "$tmp/auto.log" 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q 'error 15 (InvalidHostProfile): .*README.md:1: ' "$tmp/auto.log" ||
    { cat "$tmp/auto.log"; fail "examples/auto_wait took a README for a host profile (exit $status)"; }

# <gar/uv.h> calls libuv, so its user links libuv too: gar-uv.pc says both.
if [ -f "$incdir/gar/uv.h" ]; then
    uv=$(pkg-config --cflags --libs gar-uv) || fail "<gar/uv.h> is installed but gar-uv.pc is not"
    echo "install: gar-uv: $uv"
    # shellcheck disable=SC2086
    "$@" $warn $instrument -o "$tmp/uv_await_lines" "$src/../../examples/uv_await_lines.c" $uv \
        $instrument || fail "examples/uv_await_lines.c does not build with pkg-config gar-uv alone"
    LD_LIBRARY_PATH="$libdir" "$tmp/uv_await_lines" > "$tmp/uv.log" 2>&1 ||
        { cat "$tmp/uv.log"; fail "examples/uv_await_lines failed"; }
fi

echo "install: ok"
