#!/bin/sh
# tests/layout/check_room_sizes.sh SOURCE_ROOT — the parts that were split
# into small rooms stay small: no C file under
# experiments/{sweep,calibrate,import,verify,cli}, sim/ or sim/trace/
# longer than FILE_MAX lines, and no function in them longer than
# FUNCTION_MAX (its header's last line to its closing brace), but for the
# EXCEPTIONS below, each held to a ceiling of its own.  A function is what
# the house style makes of one: a line at the left margin that opens with
# `{`, ended by the next `}` at the margin; its name is the one before the
# `(` of the last line at the margin above it (a header may run over
# several lines).  Prints each room too large with its length; exits 1 if
# there is any.  Before that it plants too long files and functions in a
# scratch folder and checks it finds them, so a check that can no longer
# fail fails.
set -eu
root=$1
status=0
FILE_MAX=650     # "under about 600 lines", with room for a header comment
FUNCTION_MAX=100 # "under about 100 lines"
# FILE:FUNCTION:MAX, a function allowed past FUNCTION_MAX, up to MAX,
# separated by spaces.  None is left: the last, the replay's loop over a
# block of waits (sim/replay.c), was cut into helpers that inline, at no
# cost that could be measured (docs/lab/2026-12-06-replay-loop-split.md).
EXCEPTIONS=""

# Prints "FILE: N lines" and "FILE:LINE: FUNCTION N lines" past the limits.
rooms() {
    for f in "$@"; do
        awk -v file="$f" -v file_max="$FILE_MAX" -v function_max="$FUNCTION_MAX" \
            -v exceptions="$EXCEPTIONS" '
            BEGIN {
                n = split(exceptions, entry, / +/)
                for (i = 1; i <= n; i++) {
                    split(entry[i], field, /:/)
                    ceiling[field[1] ":" field[2]] = field[3]
                }
            }
            /^[A-Za-z_]/ { header = $0 }
            /^\{/ {
                start = FNR - 1
                name = header
                sub(/\(.*/, "", name)
                n = split(name, part, /[ *]+/)
                name = part[n]
            }
            /^\}/ && start > 0 {
                most = (file ":" name) in ceiling ? ceiling[file ":" name] : function_max
                if (FNR - start + 1 > most)
                    printf "%s:%d: %s %d lines\n", file, start, name, FNR - start + 1
                start = 0
            }
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
    printf 'static int two_lines(int a,\n                     int b)\n{\n'
    i=0
    while [ $i -lt 120 ]; do printf '    step();\n'; i=$((i + 1)); done
    printf '}\n'
    while [ $i -lt 700 ]; do printf '/* filler */\n'; i=$((i + 1)); done
} >"$scratch/big.c"
found=$(rooms "$scratch/big.c")
echo "$found" | grep -q 'big.c:1: long_one 123 lines' ||
    { echo "room-sizes: the check missed a long function: $found"; status=1; }
echo "$found" | grep -q 'big.c:[0-9]*: two_lines 123 lines' ||
    { echo "room-sizes: the check missed a long function with a two-line header: $found"; status=1; }
echo "$found" | grep -q 'big.c: [0-9]* lines' ||
    { echo "room-sizes: the check missed a long file: $found"; status=1; }
if echo "$found" | grep -q short_one; then
    echo "room-sizes: the check flagged a short function"
    status=1
fi

# An exception holds only its own function, in its own file, to its
# ceiling.  The tree has none, so the check runs here with one planted.
planted_exception="sim/planted.c:planted_block:200"
# Prints a function NAME of N body lines with a two-line header.
planted() {
    printf 'static int %s(int a,\n                  int b)\n{\n' "$1"
    i=0
    while [ $i -lt "$2" ]; do printf '    step();\n'; i=$((i + 1)); done
    printf '}\n'
}
mkdir -p "$scratch/sim"
planted planted_block 210 >"$scratch/sim/planted.c"
(cd "$scratch" && EXCEPTIONS=$planted_exception && rooms sim/planted.c) |
    grep -q 'sim/planted.c:[0-9]*: planted_block 213 lines' ||
    { echo "room-sizes: the check let an exception past its ceiling"; status=1; }
{ planted planted_block 150; planted other_block 150; } >"$scratch/sim/planted.c"
planted planted_block 150 >"$scratch/sim/other.c"
found=$(cd "$scratch" && EXCEPTIONS=$planted_exception && rooms sim/planted.c sim/other.c)
if echo "$found" | grep -q 'sim/planted.c:[0-9]*: planted_block'; then
    echo "room-sizes: the check flagged an exception within its ceiling: $found"
    status=1
fi
echo "$found" | grep -q 'sim/planted.c:[0-9]*: other_block 153 lines' ||
    { echo "room-sizes: the check missed a long function beside an exception: $found"; status=1; }
echo "$found" | grep -q 'sim/other.c:[0-9]*: planted_block 153 lines' ||
    { echo "room-sizes: the check excepted a function in another file: $found"; status=1; }
# Without it, as in the tree, the same function is too long.
(cd "$scratch" && rooms sim/planted.c) | grep -q 'sim/planted.c:[0-9]*: planted_block 153 lines' ||
    { echo "room-sizes: the check excepted a function with no exception"; status=1; }

# --- the tree ---
cd "$root"
rooms $(ls experiments/sweep/*.c experiments/calibrate/*.c experiments/import/*.c \
    experiments/verify/*.c experiments/cli/*.c sim/*.c sim/trace/*.c) >"$scratch/found"
if [ -s "$scratch/found" ]; then
    sed 's/^/room-sizes: /' "$scratch/found"
    status=1
fi
exit $status
