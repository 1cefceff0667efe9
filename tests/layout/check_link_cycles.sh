#!/bin/sh
# tests/layout/check_link_cycles.sh NM LIBRARY... — checks that the object
# files of gar's static libraries depend on each other one way only: no file
# calls into another that, directly or through others, calls back into it
# (posix_host -> word_wait -> posix_host was one such loop).  A file depends
# on another when it uses a global symbol the other defines, read with nm;
# tsort finds any loop.  The include rule (check_dependency_rule.sh) orders
# folders; this orders the files inside them too.  Prints each loop's files;
# exits 1 if there is any.
set -eu
nm=$1
shift
edges="${TMPDIR:-/tmp}/gar-link-edges.$$"
trap 'rm -f "$edges"' EXIT

# "D object symbol" for each definition, "U object symbol" for each use.
for lib in "$@"; do
    "$nm" -A -g --defined-only "$lib" |
        awk '$(NF-1) ~ /^[TDBRVWGS]$/ { n = split($1, p, ":"); print "D", p[n-1], $NF }'
    "$nm" -A -u "$lib" |
        awk '{ n = split($1, p, ":"); print "U", p[n-1], $NF }'
done | awk '$1 == "D" { owner[$3] = $2 }
            $1 == "U" { user[++uses] = $2; symbol[uses] = $3 }
            END {
                for (i = 1; i <= uses; i++)
                    if ((symbol[i] in owner) && owner[symbol[i]] != user[i])
                        print user[i], owner[symbol[i]]
            }' | sort -u > "$edges"

if [ ! -s "$edges" ]; then
    echo "link-cycles: no dependencies read from $* (nm found no symbols)"
    exit 1
fi
if loops=$(tsort "$edges" 2>&1 >/dev/null) && [ -z "$loops" ]; then
    echo "link-cycles: $(wc -l < "$edges") dependencies between object files, none in a loop"
    exit 0
fi
echo "link-cycles: object files that depend on each other (each loop's files):"
echo "$loops" | sed -n 's/^tsort: \([^:]*\.o\)$/  \1/p; s/^tsort: [^ ]*: input contains a loop:$/ a loop:/p'
exit 1
