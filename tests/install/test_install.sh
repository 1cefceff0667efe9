#!/bin/sh
# tests/install/test_install.sh BUILD_DIR SOURCE_DIR SANITIZE COVERAGE FUZZING CC...
# — `meson install` of the build into a temporary folder, then an outside
# program (outside.c) built against it with nothing but pkg-config, linked
# once to the shared and once to the static libgar, and run.  Each installed
# header is also compiled alone, so none leans on another it does not include.
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
for tool in meson pkg-config; do
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
# The .pc names the configured prefix, which lies under $root here: a copy
# that says so, as a user relocating an installed tree would write.
prefix=$(sed -n 's/^prefix=//p' "$pc")
mkdir "$tmp/pc"
sed "s#^prefix=.*#prefix=$root$prefix#" "$pc" > "$tmp/pc/gar.pc"
export PKG_CONFIG_PATH="$tmp/pc"
cflags=$(pkg-config --cflags gar) || fail "pkg-config --cflags gar"
libs=$(pkg-config --libs gar) || fail "pkg-config --libs gar"
static_libs=$(pkg-config --static --libs-only-l --libs-only-other gar | sed 's/-lgar //') ||
    fail "pkg-config --static --libs gar"
libdir=$(pkg-config --variable=libdir gar)
incdir=$(pkg-config --variable=includedir gar)
echo "install: cflags: $cflags"
echo "install: libs: $libs"

[ -f "$incdir/gar/gar.h" ] || fail "gar/gar.h is not installed under $incdir"
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

echo "install: ok"
