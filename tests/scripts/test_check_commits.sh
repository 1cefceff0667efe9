#!/bin/sh
# tests/scripts/test_check_commits.sh CHECKER — scripts/check-commits on a
# scratch git repository: subjects that follow the commit rule pass, one over
# 72 characters, one describing a state and one of no `area:` form are each
# refused with their commit and reason (whichever word of the list starts the
# action), characters are counted (not bytes), merge commits are skipped, and
# a range git cannot read is exit 2.
set -u
checker=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
command -v git >/dev/null 2>&1 || { echo "no git: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

cd "$tmp" || exit 1
export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.org
export GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.org
git init -q -b main . 2>/dev/null || git init -q .
git config commit.gpgsign false
n=0
commit() {
    n=$((n + 1))
    echo "$n" >"file$n"
    git add "file$n" && git commit -q -m "$1" || fail "cannot commit '$1'"
}

commit "start: an old subject that was never checked"
base=$(git rev-parse HEAD)
commit "sim/trace: move the trace reader into its own folder"
commit "sweep, replay: name the line of a path that cannot be opened"
# 72 characters, three of them two bytes each (µ): counted as 72.
commit "plan: refuse a fraction of a µs as one, with the bounds in whole µs here"
good=$(git rev-parse HEAD)

# --- only good subjects: exit 0 ---
sh "$checker" "$base..$good" >out 2>err
status=$?
[ "$status" -eq 0 ] || fail "good subjects refused (exit $status): $(cat out err)"
grep -q '3 commits' out || fail "good range not counted as 3 commits: $(cat out)"

# --- each kind of bad subject refused, the good ones not ---
long="import: count every call that repeats a correlation id, in the output and header"
commit "$long"
long_commit=$(git rev-parse --short HEAD)
commit "README: the queue generator in the tour"
state_commit=$(git rev-parse --short HEAD)
commit "Fixed the build"
form_commit=$(git rev-parse --short HEAD)
git checkout -q -b side "$good~1"
commit "tests: check the side branch"
git checkout -q main 2>/dev/null || git checkout -q master
git merge -q --no-ff --no-edit side || fail "cannot merge"

sh "$checker" "$base..HEAD" >out 2>err
status=$?
[ "$status" -eq 1 ] || fail "bad subjects: exit $status, wanted 1: $(cat out err)"
grep -q "^check-commits: $long_commit: over 72 characters (80): $long\$" out ||
    fail "the long subject not refused as such: $(cat out)"
grep -q "^check-commits: $state_commit: 'the' is no verb" out ||
    fail "the state subject not refused: $(cat out)"
grep -q "^check-commits: $form_commit: not of the form 'area: verb ...': Fixed the build\$" out ||
    fail "the subject without an area not refused: $(cat out)"
[ "$(grep -c '^check-commits: [0-9a-f]*: ' out)" -eq 3 ] ||
    fail "not exactly three refusals: $(cat out)"
grep -q "Merge" out && fail "a merge commit was checked: $(cat out)"
grep -q '7 commits' out || fail "not 7 commits counted (merges skipped): $(cat out)"

# --- a range git cannot read ---
sh "$checker" "no-such-commit..HEAD" >out 2>err
status=$?
[ "$status" -eq 2 ] || fail "unreadable range: exit $status, wanted 2"
grep -q "cannot read the range 'no-such-commit..HEAD'" err || fail "unreadable range: $(cat err)"

# --- a word that ends a line of the checker's list is refused too ---
for word in your eight another onto when; do
    commit "docs: $word subject"
    sh "$checker" "HEAD~1..HEAD" >out 2>err
    grep -q "'$word' is no verb" out || fail "'docs: $word subject' not refused: $(cat out err)"
done

[ "$failures" -eq 0 ] || exit 1
echo "check-commits: ok"
