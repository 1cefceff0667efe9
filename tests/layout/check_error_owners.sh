#!/bin/sh
# tests/layout/check_error_owners.sh PRINTER SOURCE_ROOT — no libgar source
# names a testbed code.  gar/error_codes.h says which codes are the
# testbed's (PRINTER, print_error_table, lists them): the gar command and
# its simulator report them, and no libgar function may return one, so
# core/, backends/ and the public headers (the table itself aside) never
# name one.  Prints each file that does; exits 1 if there is any, or if the
# table names no testbed code (then this check could not fail).
set -eu
printer=$1 root=$2
codes=$("$printer" testbed)
if [ -z "$codes" ]; then
    echo "error-owners: the table names no testbed code"
    exit 1
fi
status=0
for code in $codes; do
    found=$(cd "$root" && grep -rlw --include='*.c' --include='*.h' "$code" core backends include |
                grep -v '^include/gar/error_codes\.h$' || true)
    for file in $found; do
        echo "error-owners: $file names $code, a testbed code (gar/error_codes.h)"
        status=1
    done
done
[ $status -eq 1 ] || echo "error-owners: no libgar source names a testbed code ($(echo $codes | wc -w) codes)"
exit $status
