#!/bin/sh
# tests/layout/check_exports.sh NM LIBRARY MAP NODE HEADER_FOLDER HEADER... —
# checks that the shared libgar exports exactly its public API, and that
# three lists of it agree: the GAR_API declarations of the installed headers
# (the HEADER arguments), the linker version script MAP, and `nm -D` of
# LIBRARY.
#
# The check fails on:
#   - a dynamic symbol LIBRARY defines (`nm -D --defined-only`) that no
#     public header declares with GAR_API (an internal name leaking out);
#   - a GAR_API declaration LIBRARY does not export (declared, never built);
#   - a declaration of a gar_ function or an extern object at file scope of
#     a public header without GAR_API (it would silently stay hidden);
#   - a GAR_API declaration MAP does not name, or a name in MAP that no
#     header in HEADER_FOLDER declares with GAR_API (MAP also names the
#     symbols of optional backends this build may lack: those are declared
#     in headers that exist but were not installed);
#   - an exported symbol under no version node of MAP, a MAP without the
#     node NODE (the name the build gives it, after the soname), or a MAP
#     that does not make every other symbol local.
# Prints each problem; exits 1 if there is any.
set -eu
nm=$1 lib=$2 map=$3 node=$4 folder=$5
shift 5
tmp=${TMPDIR:-/tmp}/gar-exports.$$
mkdir "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0

# Symbols the library exports, less the ones the toolchain adds: those of
# any shared library, and those a sanitizer or coverage build instruments
# it with (ASan's one-definition-rule markers, for one).
"$nm" -D --defined-only "$lib" | awk 'NF == 3 && $2 != "A" { print $3 }' |
    grep -vE '^(_init|_fini|_edata|_end|__bss_start)(@|$)' |
    grep -vE '^__*(odr_asan|asan|ubsan|tsan|msan|lsan|sanitizer|sancov|gcov|llvm_)' |
    sort -u > "$tmp/versioned"
sed 's/@.*//' "$tmp/versioned" | sort -u > "$tmp/exported"
if [ ! -s "$tmp/exported" ]; then
    echo "exports: $lib exports nothing (is it the shared library?)"
    exit 1
fi

# declarations OUT MISSING HEADER...: appends to OUT the names HEADERs
# declare with GAR_API, and to MISSING their file-scope declarations that
# lack it: an awk pass over each header that skips comments and keeps
# track of braces.
declarations() {
    out=$1 missing=$2
    shift 2
    for h in "$@"; do
    awk -v file="$h" -v declared="$out" -v missing="$missing" '
    function name_of(s,   t) {
        t = s
        if (index(t, "(") > 0) t = substr(t, 1, index(t, "(") - 1)
        else { sub(/[[;].*/, "", t) }
        sub(/[ \t]+$/, "", t)
        n = split(t, w, /[^A-Za-z0-9_]+/)
        while (n > 0 && w[n] == "") n--
        return w[n]
    }
    {
        line = $0
        if (in_comment) {
            if (index(line, "*/") == 0) next
            line = substr(line, index(line, "*/") + 2)
            in_comment = 0
        }
        while (index(line, "/*") > 0) {
            pre = substr(line, 1, index(line, "/*") - 1)
            rest = substr(line, index(line, "/*") + 2)
            if (index(rest, "*/") == 0) { in_comment = 1; line = pre; break }
            line = pre substr(rest, index(rest, "*/") + 2)
        }
        if (depth == 0 && line ~ /^GAR_API[ \t]/) {
            print name_of(substr(line, 9)) >> declared
        } else if (depth == 0 && line ~ /^[A-Za-z_]/ &&
                   line !~ /^(typedef|static|enum|struct|union)[ \t]/ &&
                   (line ~ /(^|[^A-Za-z0-9_])gar_[A-Za-z0-9_]*[ \t]*\(/ || line ~ /^extern[ \t]/)) {
            print file ":" FNR ": " $0 >> missing
        }
        o = line; c = line
        depth += gsub(/\{/, "", o) - gsub(/\}/, "", c)
    }' "$h"
    done
    touch "$out" "$missing"
    sort -u "$out" -o "$out"
}
declarations "$tmp/declared" "$tmp/missing" "$@"
# Every header of the folder, installed or not (an optional backend's).
declarations "$tmp/declared_anywhere" "$tmp/missing_anywhere" "$folder"/*.h "$folder"/*.h.in

# The names MAP makes global, the ones it makes local, and its nodes: the
# script without its comments, cut into words, read as
# "NODE { global: NAME; ... local: *; } [PARENT];".
awk '{
        line = $0
        if (in_comment) {
            if (index(line, "*/") == 0) next
            line = substr(line, index(line, "*/") + 2)
            in_comment = 0
        }
        while (index(line, "/*") > 0) {
            pre = substr(line, 1, index(line, "/*") - 1)
            rest = substr(line, index(line, "/*") + 2)
            if (index(rest, "*/") == 0) { in_comment = 1; line = pre; break }
            line = pre substr(rest, index(rest, "*/") + 2)
        }
        print line
    }' "$map" | sed 's/[{};]/ & /g; s/:/: /g' | tr -s ' \t' '\n\n' | awk \
    -v nodes="$tmp/nodes" -v scripted="$tmp/scripted" -v local_names="$tmp/local" '
    $0 == "" { next }
    $0 == ";" { after_body = 0; next }
    $0 == "{" { body = 1; scope = ""; next }
    $0 == "}" { body = 0; after_body = 1; next }
    !body { if (!after_body) print > nodes; next }   # a node, or the one it inherits
    $0 == "global:" { scope = "global"; next }
    $0 == "local:" { scope = "local"; next }
    scope == "global" { print > scripted; next }
    scope == "local" { print > local_names; next }'
touch "$tmp/nodes" "$tmp/scripted" "$tmp/local"
sort -u "$tmp/scripted" -o "$tmp/scripted"

while read -r line; do
    echo "exports: declared without GAR_API (it stays hidden): $line"
    status=1
done < "$tmp/missing"
comm -23 "$tmp/exported" "$tmp/declared" > "$tmp/undeclared"
while read -r sym; do
    echo "exports: $sym is exported but no public header declares it with GAR_API"
    status=1
done < "$tmp/undeclared"
comm -13 "$tmp/exported" "$tmp/declared" > "$tmp/unbuilt"
while read -r sym; do
    echo "exports: $sym is declared with GAR_API but the library does not export it"
    status=1
done < "$tmp/unbuilt"


if ! grep -qxF "$node" "$tmp/nodes"; then
    echo "exports: $map has the version node(s) '$(tr '\n' ' ' < "$tmp/nodes")', not $node, which the build names after the soname"
    status=1
fi
if [ "$(sort -u "$tmp/local")" != "*" ]; then
    echo "exports: $map does not make every symbol it does not name local ('local: *;')"
    status=1
fi
comm -23 "$tmp/declared" "$tmp/scripted" > "$tmp/unscripted"
while read -r sym; do
    echo "exports: $sym is declared with GAR_API but $map does not name it"
    status=1
done < "$tmp/unscripted"
comm -23 "$tmp/scripted" "$tmp/declared_anywhere" > "$tmp/stale"
while read -r sym; do
    echo "exports: $map names $sym, which no header in $folder declares with GAR_API"
    status=1
done < "$tmp/stale"
while read -r versioned; do
    case $versioned in
    *@@*) grep -qxF "${versioned#*@@}" "$tmp/nodes" && continue ;;
    esac
    echo "exports: $versioned is not exported under a version node of $map"
    status=1
done < "$tmp/versioned"

if [ "$status" -eq 0 ]; then
    echo "exports: $(wc -l < "$tmp/exported") symbols under $node, each declared in a public header and named in $map"
fi
exit "$status"
