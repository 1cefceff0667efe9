#!/bin/sh
# tests/layout/check_self_contained.sh SOURCE_ROOT — the repository explains
# itself: no tracked file cites a document a reader of the repository does
# not have — a SPEC.md or DESIGN.md, a numbered section mark, or "the
# reference system" (even across a line break or a comment's margin).  What
# such a citation stood for belongs in docs/ (docs/design.md,
# docs/glossary.md), in the repository's own words.  Prints each citation
# with its file and line; exits 1 if there is any.  Before that it plants
# one citation of each kind in a scratch folder and checks it finds them,
# so a check that can no longer fail fails.
set -eu
root=$1
status=0

documents='(SPEC|DESIGN)[.]md'
section=$(printf '\302\247')
phrase='the reference system'

# The files to read under $1: git's tracked files in a checkout, else every
# file outside build folders (a source tarball); text files only; not this
# file, which names what it looks for.
files_of() {
    if git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$1" ls-files -z | (cd "$1" && xargs -0 grep -Il '' 2>/dev/null) || true
    else
        (cd "$1" && find . -path './build*' -prune -o -path './.git' -prune -o -type f -print |
            sed 's|^\./||' | xargs grep -Il '' 2>/dev/null) || true
    fi
}

# Prints "FILE:LINE: what" for each citation under $1.
citations() {
    (
        cd "$1"
        files_of . | grep -vx 'tests/layout/check_self_contained.sh' >"$scratch/files" || true
        [ -s "$scratch/files" ] || exit 0
        tr '\n' '\0' <"$scratch/files" | xargs -0 grep -nE "$documents" /dev/null |
            sed 's/$/  <- cites a document outside the repository/' || true
        tr '\n' '\0' <"$scratch/files" | LC_ALL=C xargs -0 grep -nF "$section" /dev/null |
            sed 's/$/  <- cites a numbered section of a document outside the repository/' || true
        # Comment margins and line breaks fold to one space, so a phrase
        # split over two comment lines is still one phrase.  One awk reads
        # every file (a process or two per file took seconds).
        tr '\n' '\0' <"$scratch/files" | xargs -0 awk -v phrase="$phrase" '
            function check(file,    folded) {
                folded = tolower(text)
                gsub(/[\n\t *\/#]+/, " ", folded)
                if (index(folded, phrase))
                    print file ": cites \"" phrase "\", a system outside the repository"
            }
            FNR == 1 { if (NR > 1) check(name); name = FILENAME; text = "" }
            { text = text "\n" $0 }
            END { if (NR > 0) check(name) }'
    )
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# --- the check finds what it looks for ---
mkdir "$scratch/tree"
printf 'as SPEC.md says\n' >"$scratch/tree/a.md"
printf 'see DESIGN.md\n' >"$scratch/tree/b.c"
printf 'the order (%s8)\n' "$section" >"$scratch/tree/c.h"
printf '/* codes 1-8 are the reference\n * system'"'"'s */\n' >"$scratch/tree/d.c"
printf 'a plain file\n' >"$scratch/tree/e.txt"
found=$(citations "$scratch/tree")
for f in a.md b.c c.h d.c; do
    echo "$found" | grep -q "^$f:" || { echo "self-contained: the check missed $f"; status=1; }
done
if echo "$found" | grep -q '^e.txt:'; then
    echo "self-contained: the check flagged a plain file"
    status=1
fi

# --- the tree ---
citations "$root" >"$scratch/found"
if [ -s "$scratch/found" ]; then
    sed 's/^/self-contained: /' "$scratch/found"
    status=1
fi
exit $status
