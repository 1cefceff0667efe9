# tests/cli/lib.sh — what the shell tests of the `gar` command share.
# A test sources it right after `set -u`, with the gar command as its first
# argument:  . "$(dirname "$0")/lib.sh"
#
# It sets:
#   gar        the command under test ($1)
#   tmp        a fresh folder, removed when the test exits
#   failures   0; fail adds one each time
# and defines:
#   fail MESSAGE...     counts a failure and says it on stderr
#   expect CODE CMD...  runs CMD with stdout to $tmp/out and stderr to
#                       $tmp/err; a failure unless it exits with CODE
#   unmount_at_exit     for a test that mounts a tmpfs (a full disk) and
#                       names it in $mounted: the exit unmounts it before
#                       removing $tmp, and a killed test still exits so
gar=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

expect() {
    want=$1
    shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" -eq "$want" ] || fail "exit $got, wanted $want: $* ($(head -c 300 "$tmp/err"))"
}

unmount_at_exit() {
    mounted=""
    trap '[ -n "$mounted" ] && umount "$mounted" 2>/dev/null; rm -rf "$tmp"' EXIT
    trap 'exit 1' INT TERM
}
