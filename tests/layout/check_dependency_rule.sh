#!/bin/sh
# tests/layout/check_dependency_rule.sh SOURCE_ROOT CORE_HEADER... — checks the
# one dependency rule of the layout: core/ includes only the freestanding-style
# C headers it is allowed and core's own public headers (the CORE_HEADER
# arguments, those of include/gar/ that core owns, never the backends'), and
# so do those headers themselves; sim/ and backends/ never include each other;
# nothing below experiments/ includes it, and core/ reaches no other folder;
# only experiments/ uses SQLite; experiments/ keeps each part in its folder,
# and its folders depend only downwards (cli -> report -> verify -> sweep ->
# import; verify -> run; cli -> calibrate), which each include's folder path
# shows; sim/trace/ (the trace format and file plumbing) is sim's ground
# floor: it includes no simulator header, and experiments/import/ reaches
# into sim/ only for it.  Prints each violation; exits 1 if there is any.
set -eu
root=$1
shift
status=0

# Core's public headers, by name (alarm_heap.h ...).
core_headers=""
for h in "$@"; do core_headers="$core_headers ${h##*/}"; done
[ -n "$core_headers" ] || { echo "layout: no core headers given"; exit 1; }
is_core_header() {
    for c in $core_headers; do [ "$c" = "$1" ] && return 0; done
    return 1
}

violation() {
    echo "layout: $1"
    status=1
}

allowed_core='stdint.h stdbool.h stddef.h stdatomic.h string.h stdarg.h assert.h'
for file in $(find "$root/core" -name '*.[ch]' | sort) "$@"; do
    grep -o '^[[:space:]]*#[[:space:]]*include[[:space:]]*<[^>]*>' "$file" |
        sed 's/.*<\(.*\)>/\1/' | while read -r header; do
        case "$header" in
            gar/*)
                is_core_header "${header#gar/}" ||
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
# Internal headers shared across folders are included by their path from the
# source root ("core/nearest_rank.h"): a path names the folder it reaches.
check_no_include core '#[[:space:]]*include[[:space:]]*["<](\.\./)*(sim|backends|experiments)/' "core/ may not include another folder"
check_no_include sim '#[[:space:]]*include[[:space:]]*["<](\.\./)*backends/' "sim/ may not include backends/"
check_no_include backends '#[[:space:]]*include[[:space:]]*["<](\.\./)*sim/' "backends/ may not include sim/"
for dir in sim backends; do
    check_no_include "$dir" '#[[:space:]]*include[[:space:]]*["<](\.\./)*experiments/' "$dir/ may not include experiments/"
done
# The backends' public headers are those of include/gar/ that are not core's.
for h in "$root"/include/gar/*.h "$root"/include/gar/*.h.in; do
    [ -f "$h" ] || continue
    name=${h##*/}
    name=${name%.in}
    is_core_header "$name" && continue
    check_no_include sim "#[[:space:]]*include[[:space:]]*<gar/$name>" "sim/ may not include backends/ (<gar/$name>)"
done
for dir in core sim backends; do
    check_no_include "$dir" '#[[:space:]]*include[[:space:]]*<sqlite3\.h>' "only experiments/ links SQLite"
done

# backends/: every source sits in its part's folder (public headers in the
# root's include/gar/).
for file in "$root"/backends/*.[ch]; do
    [ -e "$file" ] && violation "$file: backends/ keeps its sources in part folders (hosts, devices, gpu, interpose)"
done

# experiments/: every source sits in its part's folder.
for file in "$root"/experiments/*.[ch]; do
    [ -e "$file" ] && violation "$file: experiments/ keeps its sources in part folders (cli, import, sweep, report, verify, calibrate)"
done

# experiments/: folders in layers, each including headers only of its own
# folder and of the folders below it:
#   cli -> report -> verify -> sweep -> import   (report uses sweep directly too)
#   cli -> verify -> run                         (gar run's logs and recordings; run uses sim only)
#   cli -> calibrate                             (only the command measures a host)
#   bench                                        (benchmark helpers, on their own)
# Headers are included by a path that names their folder ("sweep/db.h"),
# which is what lets this check read a file's layer off its includes.
experiments_parts='cli report verify sweep run calibrate import bench'
part_may_use() {
    case $1 in
        cli) echo "cli report verify sweep run calibrate import" ;;
        report) echo "report verify sweep import" ;;
        verify) echo "verify sweep run import" ;;
        run) echo "run" ;;
        sweep) echo "sweep import" ;;
        import) echo "import" ;;
        calibrate) echo "calibrate" ;;
        bench) echo "bench" ;;
        *) return 1 ;;
    esac
}
quoted_includes() {
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"
}
# A header's name without its folder, where it is an experiments or sim
# header: the folder to name ("sweep", "sim", "sim/trace").
owner_of_bare() {
    for dir in "$root"/experiments/*/ "$root/sim/" "$root/sim/trace/"; do
        [ -f "$dir$1" ] || continue
        case $dir in
            "$root"/sim/*) dir=${dir#"$root"/}; echo "${dir%/}" ;;
            *) basename "$dir" ;;
        esac
        return 0
    done
    return 1
}
for dir in "$root"/experiments/*/; do
    part=$(basename "$dir")
    files=$(find "$dir" -name '*.[ch]' | sort)
    [ -n "$files" ] || continue
    if ! uses=$(part_may_use "$part"); then
        violation "experiments/$part/ holds C sources but has no place in the layer order ($experiments_parts)"
        continue
    fi
    for file in $files; do
        for header in $(quoted_includes "$file"); do
            case "$header" in
                */*)
                    target=${header%%/*}
                    case " $experiments_parts " in *" $target "*) ;; *) continue ;; esac
                    case " $uses " in
                        *" $target "*) ;;
                        *) violation "$file includes $header: $part/ may use only $uses" ;;
                    esac ;;
                *)
                    if owner=$(owner_of_bare "$header"); then
                        violation "$file includes \"$header\": name its folder (\"$owner/$header\")"
                    fi ;;
            esac
        done
    done
done
# sim/ is below every experiments folder: it includes none of their headers,
# and its own by the path that names it ("sim/trace/trace.h").
for file in $(find "$root/sim" -name '*.[ch]' | sort); do
    for header in $(quoted_includes "$file"); do
        target=${header%%/*}
        case " $experiments_parts experiments " in
            *" $target "*) violation "$file includes $header: sim/ may not include experiments/" ;;
        esac
        case "$header" in
            */*) ;;
            *) if owner=$(owner_of_bare "$header"); then
                   violation "$file includes \"$header\": name its folder (\"$owner/$header\")"
               fi ;;
        esac
    done
done
# sim/trace/ is sim's ground floor: the trace format and the file plumbing
# (gzip, mapped text, atomic files, leftovers, the allocation hook), which
# the simulator and experiments/import build on.  It includes no header of
# the simulator above it (sim/replay.h, sim/gen.h, ...), only its own.
for file in $(find "$root/sim/trace" -name '*.[ch]' 2>/dev/null | sort); do
    for header in $(quoted_includes "$file"); do
        case "$header" in
            sim/trace/*) ;;
            sim/*) violation "$file includes $header: sim/trace/ is sim's ground floor and may not include the simulator" ;;
        esac
    done
done
# experiments/import/ reads profiles into traces: of sim/ it uses the trace
# library alone (its build links libgar_trace, not libgar_sim).
for file in $(find "$root/experiments/import" -name '*.[ch]' 2>/dev/null | sort); do
    for header in $(quoted_includes "$file"); do
        case "$header" in
            sim/trace/*) ;;
            sim/*) violation "$file includes $header: import/ may use only sim/trace/ of sim" ;;
        esac
    done
done

[ "$status" -eq 0 ] && echo "layout: dependency rule holds"
exit "$status"
