#!/bin/sh
# tests/layout/check_exports.sh NM LIBRARY HEADER... — checks that the shared
# libgar exports exactly its public API.
#
# The public API is what the installed headers (the HEADER arguments) declare
# with GAR_API at the start of a line.  The check fails on:
#   - a dynamic symbol LIBRARY defines (`nm -D --defined-only`) that no
#     public header declares with GAR_API (an internal name leaking out);
#   - a GAR_API declaration LIBRARY does not export (declared, never built);
#   - a declaration of a gar_ function or an extern object at file scope of
#     a public header without GAR_API (it would silently stay hidden).
# Prints each problem; exits 1 if there is any.
set -eu
nm=$1 lib=$2
shift 2
tmp=${TMPDIR:-/tmp}/gar-exports.$$
mkdir "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0

# Symbols the library exports, less the ones the toolchain adds: those of
# any shared library, and those a sanitizer or coverage build instruments
# it with (ASan's one-definition-rule markers, for one).
"$nm" -D --defined-only "$lib" | awk 'NF == 3 && $2 != "A" { print $3 }' |
    sed 's/@.*//' | grep -vxE '_init|_fini|_edata|_end|__bss_start' |
    grep -vE '^__*(odr_asan|asan|ubsan|tsan|msan|lsan|sanitizer|sancov|gcov|llvm_)' |
    sort -u > "$tmp/exported"
if [ ! -s "$tmp/exported" ]; then
    echo "exports: $lib exports nothing (is it the shared library?)"
    exit 1
fi

# Names declared with GAR_API, and file-scope declarations missing it: an
# awk pass over each header that skips comments and keeps track of braces.
for h in "$@"; do
    awk -v file="$h" -v declared="$tmp/declared" -v missing="$tmp/missing" '
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
touch "$tmp/declared" "$tmp/missing"
sort -u "$tmp/declared" -o "$tmp/declared"

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

if [ "$status" -eq 0 ]; then
    echo "exports: $(wc -l < "$tmp/exported") symbols, each declared in a public header"
fi
exit "$status"
