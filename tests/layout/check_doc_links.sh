#!/bin/sh
# tests/layout/check_doc_links.sh SOURCE_ROOT — every relative link of the
# repository's Markdown files leads somewhere: `[text](path)` names a file or
# folder that exists, taken from the linking file's folder, and
# `[text](path#anchor)` (or `(#anchor)`) a heading of that Markdown file.
# Links with a scheme (https:, mailto:) are not followed.  Anchors are made
# as GitHub makes them: lower case, spaces to hyphens, punctuation and
# non-ASCII characters dropped (a heading with accented letters would need
# more).  Fenced code blocks are skipped.  Prints each broken link with its
# file and line; exits 1 if there is any.  Before that it checks itself on a
# scratch tree holding a good and a broken link of each kind.
set -eu
root=$1
status=0

# The Markdown files under $1, one a line, relative to it: in a checkout
# git's tracked and untracked ones (not those it ignores), else every one
# outside build folders (a tarball).
markdown_files() {
    if git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$1" ls-files --cached --others --exclude-standard '*.md'
    else
        (cd "$1" && find . -path './build*' -prune -o -path './.git' -prune -o \
            -type f -name '*.md' -print | sed 's|^\./||')
    fi
}

# Prints "LINE TARGET" for each inline link of file $1 outside code fences.
links_of() {
    awk '
        /^[ \t]*(```|~~~)/ { fenced = !fenced; next }
        fenced { next }
        {
            line = $0
            while (match(line, /\]\([^) \t]+\)/)) {
                print NR " " substr(line, RSTART + 2, RLENGTH - 3)
                line = substr(line, RSTART + RLENGTH)
            }
        }' "$1"
}

# Prints the anchors of Markdown file $1's headings, one a line.
anchors_of() {
    LC_ALL=C awk '
        /^[ \t]*(```|~~~)/ { fenced = !fenced; next }
        fenced { next }
        /^#+[ \t]/ {
            h = $0
            sub(/^#+[ \t]+/, "", h)
            sub(/[ \t]+$/, "", h)
            h = tolower(h)
            gsub(/[^a-z0-9 _-]/, "", h)
            gsub(/ /, "-", h)
            print h
        }' "$1"
}

# Prints "FILE:LINE: broken link TARGET (why)" for each broken link under $1.
broken_links() {
    (
        cd "$1"
        markdown_files . | while IFS= read -r f; do
            [ -f "$f" ] || continue   # tracked, but deleted in the working tree
            dir=$(dirname "$f")
            links_of "$f" | while read -r line target; do
                case $target in
                *:*) continue ;;   # a scheme: https:, mailto:
                esac
                path=${target%%#*}
                anchor=""
                case $target in *'#'*) anchor=${target#*#} ;; esac
                if [ -z "$path" ]; then
                    dest=$f
                else
                    dest="$dir/$path"
                fi
                if [ ! -e "$dest" ]; then
                    echo "$f:$line: broken link $target (no such file)"
                    continue
                fi
                if [ -n "$anchor" ]; then
                    case $dest in
                    *.md)
                        if ! anchors_of "$dest" | grep -qxF "$anchor"; then
                            echo "$f:$line: broken link $target (no such heading)"
                        fi
                        ;;
                    esac
                fi
            done
        done
    )
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# --- the check finds what it looks for, and only that ---
mkdir -p "$scratch/tree/docs"
cat >"$scratch/tree/a.md" <<'EOF'
# Top: the `first` heading

[good file](docs/b.md), [good anchor](docs/b.md#a-later-heading--its-end)
[good local](#top-the-first-heading) and [a folder](docs/) [web](https://example.org/x)
[missing file](docs/nowhere.md)
```
[inside a fence](docs/not-checked.md)
```
EOF
cat >"$scratch/tree/docs/b.md" <<'EOF'
# B

## A later heading — its end

[back up](../a.md) then [missing anchor](../a.md#no-such-heading)
EOF
found=$(broken_links "$scratch/tree")
expected='a.md:5: broken link docs/nowhere.md (no such file)
docs/b.md:5: broken link ../a.md#no-such-heading (no such heading)'
if [ "$found" != "$expected" ]; then
    echo "doc-links: the check on its scratch tree found:"
    echo "$found"
    echo "doc-links: where it should have found:"
    echo "$expected"
    status=1
fi

# --- the tree ---
broken_links "$root" >"$scratch/found"
if [ -s "$scratch/found" ]; then
    sed 's/^/doc-links: /' "$scratch/found"
    status=1
fi
exit $status
