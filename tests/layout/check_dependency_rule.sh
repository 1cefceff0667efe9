#!/bin/sh
# tests/layout/check_dependency_rule.sh SOURCE_ROOT — checks the one dependency
# rule of the layout: core/ includes only the freestanding-style C headers it
# is allowed and its own (core/include/gar/, never the backends' public
# headers in backends/include/gar/); sim/ and backends/ never include each
# other; only experiments/ uses SQLite; experiments/ keeps each part in its
# folder, only the command (cli/) reaches the verbs' helpers, and the
# importers (import/) know nothing of reports or verification, and only the
# command reaches the calibration (calibrate/).  Prints each
# violation; exits 1 if there is any.
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

# backends/: every source sits in its part's folder (public headers in include/gar/).
for file in "$root"/backends/*.[ch]; do
    [ -e "$file" ] && violation "$file: backends/ keeps its sources in part folders (hosts, devices, gpu)"
done

# experiments/: every source sits in its part's folder.
for file in "$root"/experiments/*.[ch]; do
    [ -e "$file" ] && violation "$file: experiments/ keeps its sources in part folders (cli, import, sweep, report, verify, calibrate)"
done

# Headers of part $1 that sources outside the folders $2 include.
check_part_private() {
    part=$1 users=$2 why=$3
    for header in "$root/experiments/$part"/*.h; do
        [ -e "$header" ] || continue
        name=$(basename "$header")
        for dir in "$root"/experiments/*/; do
            owner=$(basename "$dir")
            case " $users " in *" $owner "*) continue ;; esac
            hits=$(grep -lE "#[[:space:]]*include[[:space:]]*\"$name\"" "$dir"*.[ch] 2>/dev/null || true)
            for h in $hits; do violation "$h includes $part/$name: $why"; done
        done
    done
}
check_part_private cli "cli" "only the command uses the verbs' helpers"
check_part_private report "cli report" "only the command and the report draw plots"
check_part_private verify "cli report verify sweep" "the importers know nothing of verification"
check_part_private calibrate "cli calibrate" "only the command measures a host"

[ "$status" -eq 0 ] && echo "layout: dependency rule holds"
exit "$status"
