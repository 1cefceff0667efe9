#!/bin/sh
# tests/layout/check_error_table.sh PRINTER GLOSSARY [--write] — the table
# of codes in GLOSSARY (docs/glossary.md) is the one PRINTER
# (print_error_table) makes from gar/error_codes.h.
#
# The table stands between two marker lines, "<!-- error table: begin"
# and "<!-- error table: end" (the rest of each line is free).  Without
# --write: prints the difference and exits 1 when the lines between the
# markers are not PRINTER's output, or the markers are not there once
# each, in order.  With --write: puts PRINTER's output between the markers
# (`ninja -C build glossary-errors` runs this), leaving the rest as it was.
#
# The doc is checked in and the build only checks it: a build that wrote
# into the source tree would dirty every checkout it ran in, and fail in a
# read-only one.
set -eu
printer=$1 glossary=$2 mode=${3:-check}
tmp=${TMPDIR:-/tmp}/gar-error-table.$$
mkdir "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM

"$printer" > "$tmp/made"

begins=$(grep -c '^<!-- error table: begin' "$glossary" || true)
ends=$(grep -c '^<!-- error table: end' "$glossary" || true)
first_begin=$(grep -n '^<!-- error table: begin' "$glossary" | head -n 1 | cut -d: -f1)
first_end=$(grep -n '^<!-- error table: end' "$glossary" | head -n 1 | cut -d: -f1)
if [ "$begins" != 1 ] || [ "$ends" != 1 ] || [ "$first_begin" -ge "$first_end" ]; then
    echo "error-table: $glossary needs one '<!-- error table: begin' line, then one"
    echo "'<!-- error table: end' line (found $begins and $ends)"
    exit 1
fi

# The lines between the markers.
awk 'index($0, "<!-- error table: end") == 1 { inside = 0 }
     inside { print }
     index($0, "<!-- error table: begin") == 1 { inside = 1 }' "$glossary" > "$tmp/held"

if [ "$mode" = --write ]; then
    awk -v made="$tmp/made" '
        index($0, "<!-- error table: end") == 1 { inside = 0 }
        !inside { print }
        index($0, "<!-- error table: begin") == 1 {
            inside = 1
            while ((getline line < made) > 0)
                print line
        }' "$glossary" > "$tmp/new"
    if cmp -s "$tmp/new" "$glossary"; then
        echo "error-table: $glossary already holds the table"
    else
        cat "$tmp/new" > "$glossary"
        echo "error-table: wrote the table into $glossary"
    fi
    exit 0
fi

if ! diff -u "$tmp/held" "$tmp/made"; then
    echo "error-table: the table in $glossary is not the one gar/error_codes.h makes"
    echo "(- what the glossary holds, + what the table makes); ninja -C BUILD glossary-errors"
    echo "writes it there"
    exit 1
fi
echo "error-table: $glossary holds the table of $(grep -c '^| [0-9]' "$tmp/made") codes"
