#!/bin/sh
# tests/layout/check_error_table_compile.sh SOURCE_ROOT CC... — a table of
# codes with a row that has no template does not build.  Compiles
# core/error.c (syntax only) with error_table_stand_in.h in the place of
# gar/error_codes.h: its second row well formed must compile (so the
# failures below are the row's, not the command's), and without a
# template, with an empty one, with NULL for one, or numbered 3 after 1,
# must not, each but the NULL one saying why.  Exits 1,
# printing what went wrong, when any shape does otherwise.
set -eu
root=$1
shift
tmp=${TMPDIR:-/tmp}/gar-error-table-compile.$$
mkdir "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0

compile() { # SHAPE: compiles core/error.c with that second row; output in $tmp/SHAPE
    "$@" -std=c11 -Wall -Wextra -Werror -fsyntax-only -I "$root/include" -I "$root/core" \
        -include "$root/tests/layout/error_table_stand_in.h" -D"ROW_TWO_$shape" \
        "$root/core/error.c" > "$tmp/$shape" 2>&1
}

shape=GIVEN
if ! compile "$@"; then
    echo "error-table-compile: core/error.c with a well-formed stand-in table does not compile:"
    cat "$tmp/$shape"
    status=1
fi
for shape in WITHOUT_TEMPLATE EMPTY_TEMPLATE NULL_TEMPLATE NUMBERED_THREE; do
    if compile "$@"; then
        echo "error-table-compile: core/error.c compiles with a row $shape"
        status=1
        continue
    fi
    case $shape in
        WITHOUT_TEMPLATE) why='arguments' ;; # the macros' count (gcc and clang say so)
        EMPTY_TEMPLATE) why='has no template' ;;
        NUMBERED_THREE) why='is not at its place' ;;
        *) why='' ;;
    esac
    if [ -n "$why" ] && ! grep -q "$why" "$tmp/$shape"; then
        echo "error-table-compile: a row $shape fails without saying '$why':"
        cat "$tmp/$shape"
        status=1
    fi
done
[ $status -eq 1 ] || echo "error-table-compile: each malformed row fails the build"
exit $status
