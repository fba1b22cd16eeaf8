# common.bash — helpers for the CLI test scripts (sourced, not a test itself).
# Usage in a script:  source "$(dirname "$0")/common.bash" "$@"
# Sets TILEC (the binary), SRC (the source tree), WORK (a scratch directory
# removed on exit); `expect CODE CMD...` runs CMD with stdout in $WORK/out and
# stderr in $WORK/err and fails the test unless it exits with CODE.
set -uo pipefail
TILEC=${1:?usage: bash script.sh TILEC_BINARY SOURCE_DIR}
SRC=${2:?usage: bash script.sh TILEC_BINARY SOURCE_DIR}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tilec-cli.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FAILURES=0

fail() {
  echo "FAIL: $*" >&2
  FAILURES=$((FAILURES + 1))
}

expect() {
  local want=$1
  shift
  "$@" >"$WORK/out" 2>"$WORK/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    fail "exit $got (want $want): $*"
    sed 's/^/  stdout: /' "$WORK/out" >&2
    sed 's/^/  stderr: /' "$WORK/err" >&2
    return 1
  fi
  return 0
}

# contains FILE REGEX: the file has a line matching the extended regex.
contains() {
  grep -Eq -- "$2" "$1" || fail "$1 lacks /$2/: $(head -c 400 "$1")"
}

finish() {
  if [ "$FAILURES" -ne 0 ]; then
    echo "$FAILURES check(s) failed" >&2
    exit 1
  fi
  echo "all checks passed"
}
