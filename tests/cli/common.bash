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

lacks() {
    if grep -Eq -- "$2" "$1"; then fail "$1 has /$2/: $(head -c 300 "$1")"; fi
}
finish() {
  if [ "$FAILURES" -ne 0 ]; then
    echo "$FAILURES check(s) failed" >&2
    exit 1
  fi
  echo "all checks passed"
}

# sanitizer_build: whether $TILEC's build uses a sanitizer; a plain C
# program or Python cannot load its libraries (the sanitizer's runtime must
# come first), so the tests that do skip those steps.
sanitizer_build() { grep -Eq '^TILEC_(SANITIZE|TSAN):BOOL=ON' "$(dirname "$TILEC")/CMakeCache.txt" 2>/dev/null; }
# skip_in_sanitizer_build WHAT: in such a build, a note that WHAT is not
# done here, and the script ends (passing what it checked so far).
skip_in_sanitizer_build() {
  sanitizer_build || return 0
  echo "note: a sanitizer build; $1"
  finish
  exit 0
}

# limited OPTION KB CMD...: runs CMD under `ulimit OPTION KB` (-v address
# space, -d data segment).  limits_work OPTION KB: whether tilec starts at all
# under that limit (an AddressSanitizer build reserves terabytes of address
# space and does not): tests of limits skip themselves when it does not.
limited() { bash -c "ulimit $1 $2; exec \"\$@\"" _ "${@:3}"; }
limits_work() {
  limited "$1" "$2" "$TILEC" help >/dev/null 2>&1 && return 0
  echo "note: tilec does not start under ulimit $1 $2 (a sanitizer build?); those checks are skipped"
  return 1
}

# npy_f32 FILE SHAPE WORD...: writes a version 1.0 .npy of little-endian f32
# elements given as 8-hex-digit bit patterns (3f800000 is 1.0, 7f800000 inf,
# 7fc00000 NaN, 80000000 -0); SHAPE is the header's tuple, e.g. '(1, 4)'.
npy_f32() {
  local file=$1 shape=$2 word
  shift 2
  local dict="{'descr': '<f4', 'fortran_order': False, 'shape': $shape, }"
  local pad=$(((64 - (10 + ${#dict} + 1) % 64) % 64))
  local hlen=$((${#dict} + pad + 1))
  {
    printf '\223NUMPY\001\000'
    printf "\\x$(printf %02x $((hlen & 255)))\\x$(printf %02x $((hlen >> 8)))"
    printf '%s%*s\n' "$dict" "$pad" ''
    for word in "$@"; do printf "\\x${word:6:2}\\x${word:4:2}\\x${word:2:2}\\x${word:0:2}"; done
  } >"$file"
}
