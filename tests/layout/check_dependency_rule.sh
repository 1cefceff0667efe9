#!/bin/sh
# tests/layout/check_dependency_rule.sh SOURCE_ROOT — checks the one dependency
# rule of the layout: core/ includes only the freestanding-style C headers it
# is allowed and its own (core/include/gar/, never the backends' public
# headers in backends/include/gar/); sim/ and backends/ never include each
# other; only experiments/ uses SQLite.  Prints each violation; exits 1 if
# there is any.
set -eu
root=$1
status=0

violation() {
    echo "layout: $1"
    status=1
}

allowed_core='stdint.h stdbool.h stddef.h stdatomic.h string.h stdarg.h assert.h'
for file in $(find "$root/core" -name '*.[ch]' | sort); do
    grep -o '^[[:space:]]*#[[:space:]]*include[[:space:]]*<[^>]*>' "$file" |
        sed 's/.*<\(.*\)>/\1/' | while read -r header; do
        case "$header" in
            gar/*)
                [ -f "$root/core/include/$header" ] ||
                    echo "$file includes <$header>, which is not core's"
                continue ;;
        esac
        ok=no
        for a in $allowed_core; do [ "$header" = "$a" ] && ok=yes; done
        [ "$ok" = yes ] || echo "$file includes <$header>"
    done
done > "${TMPDIR:-/tmp}/gar-layout.$$"
if [ -s "${TMPDIR:-/tmp}/gar-layout.$$" ]; then
    while read -r line; do violation "core may not depend on the OS: $line"; done < "${TMPDIR:-/tmp}/gar-layout.$$"
fi
rm -f "${TMPDIR:-/tmp}/gar-layout.$$"

check_no_include() {
    dir=$1 pattern=$2 why=$3
    [ -d "$root/$dir" ] || return 0
    hits=$(grep -rlE "$pattern" "$root/$dir" --include='*.[ch]' || true)
    for h in $hits; do violation "$h: $why"; done
}
check_no_include sim '#[[:space:]]*include[[:space:]]*["<](\.\./)*backends/' "sim/ may not include backends/"
check_no_include backends '#[[:space:]]*include[[:space:]]*["<](\.\./)*sim/' "backends/ may not include sim/"
# The backends' public headers are included as <gar/NAME.h>, like core's.
for h in "$root"/backends/include/gar/*.h "$root"/backends/include/gar/*.h.in; do
    [ -f "$h" ] || continue
    name=${h##*/}
    name=${name%.in}
    check_no_include sim "#[[:space:]]*include[[:space:]]*<gar/$name>" "sim/ may not include backends/ (<gar/$name>)"
done
for dir in core sim backends; do
    check_no_include "$dir" '#[[:space:]]*include[[:space:]]*<sqlite3\.h>' "only experiments/ links SQLite"
done

[ "$status" -eq 0 ] && echo "layout: dependency rule holds"
exit "$status"
