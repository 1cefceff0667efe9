#!/bin/sh
# tests/layout/check_room_sizes.sh SOURCE_ROOT — the testbed's parts that
# were split into small rooms stay small: no C file under
# experiments/{sweep,calibrate,import,verify,cli} longer than FILE_MAX
# lines, and no function in them longer than FUNCTION_MAX (its header line
# to its closing brace).  A function is what the house style makes of one:
# a line at the left margin that opens with `{`, the line before it its
# header, ended by the next `}` at the margin.  Prints each room too large
# with its length; exits 1 if there is any.  Before that it plants one too
# long file and one too long function in a scratch folder and checks it
# finds them, so a check that can no longer fail fails.
set -eu
root=$1
status=0
FILE_MAX=650     # "under about 600 lines", with room for a header comment
FUNCTION_MAX=100 # "under about 100 lines"

# Prints "FILE: N lines" and "FILE:LINE: FUNCTION N lines" past the limits.
rooms() {
    for f in "$@"; do
        awk -v file="$f" -v file_max="$FILE_MAX" -v function_max="$FUNCTION_MAX" '
            /^\{/ { start = FNR - 1; header = previous }
            /^\}/ && start > 0 {
                if (FNR - start + 1 > function_max) {
                    name = header
                    sub(/\(.*/, "", name)
                    n = split(name, part, /[ *]+/)
                    printf "%s:%d: %s %d lines\n", file, start, part[n], FNR - start + 1
                }
                start = 0
            }
            { previous = $0 }
            END { if (FNR > file_max) printf "%s: %d lines\n", file, FNR }
        ' "$f"
    done
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# --- the check finds what it looks for ---
{
    printf 'static int long_one(void)\n{\n'
    i=0
    while [ $i -lt 120 ]; do printf '    step();\n'; i=$((i + 1)); done
    printf '}\n\nstatic int short_one(void)\n{\n    return 0;\n}\n'
    while [ $i -lt 700 ]; do printf '/* filler */\n'; i=$((i + 1)); done
} >"$scratch/big.c"
found=$(rooms "$scratch/big.c")
echo "$found" | grep -q 'big.c:1: long_one 123 lines' ||
    { echo "room-sizes: the check missed a long function: $found"; status=1; }
echo "$found" | grep -q 'big.c: [0-9]* lines' ||
    { echo "room-sizes: the check missed a long file: $found"; status=1; }
if echo "$found" | grep -q short_one; then
    echo "room-sizes: the check flagged a short function"
    status=1
fi

# --- the tree ---
cd "$root"
rooms $(ls experiments/sweep/*.c experiments/calibrate/*.c experiments/import/*.c \
    experiments/verify/*.c experiments/cli/*.c) >"$scratch/found"
if [ -s "$scratch/found" ]; then
    sed 's/^/room-sizes: /' "$scratch/found"
    status=1
fi
exit $status
