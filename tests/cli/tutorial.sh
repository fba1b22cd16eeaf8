# docs/tutorial.md stays true: every `build/tilec ...` command it prints runs
# (from the source tree, with this build's tilec) and succeeds, `run --check`
# agrees with the reference, the plan is the one the text describes, the
# typo example gives the diagnostic shown, and the Python snippet runs
# against this build's library and matches NumPy.
source "$(dirname "$0")/common.bash" "$@"

SRC=$(cd "$SRC" && pwd)
TILEC=$(cd "$(dirname "$TILEC")" && pwd)/$(basename "$TILEC")
DOC=$SRC/docs/tutorial.md
n=0
while IFS= read -r line; do
  n=$((n + 1))
  read -r -a words <<<"${line#build/tilec }"
  expect 0 env -C "$SRC" "$TILEC" "${words[@]}" || continue
  case "$line" in
    *" run "*--check*) contains "$WORK/out" 'vs reference: max abs err .*, ok$' ;;
    *" plan "*--width\ 16\ --workers\ 2) contains "$WORK/out" '^chosen: .* W 16, local lanes 16, .*, fused$' ;;
  esac
done < <(grep -E '^build/tilec ' "$DOC")
[ "$n" -ge 5 ] || fail "found $n tilec commands in docs/tutorial.md, expected at least 5"

# The typo example: the diagnostic as printed in the tutorial.
sed 's/%h   = add %x, %res/%h   = ad %x, %res/' "$SRC/docs/tutorial/add_rmsnorm.tir" >"$WORK/add_rmsnorm.tir"
expect 1 env -C "$WORK" "$TILEC" check add_rmsnorm.tir && {
  grep -A2 "^add_rmsnorm.tir:16:12: error\[TIR-P02\]" "$DOC" >"$WORK/want"
  cmp -s "$WORK/want" "$WORK/err" || fail "the tutorial's diagnostic differs: $(cat "$WORK/err")"
}

# The Python snippet (not in a sanitizer build: Python cannot load its libtilec.so).
sanitizer_build && { echo "note: a sanitizer build; the Python snippet is skipped"; finish; exit 0; }
awk '/^## 6. From Python/ { on = 1 } on && /^```python$/ { code = 1; next } code && /^```$/ { exit } code' \
  "$DOC" >"$WORK/snippet.py"
PY=/usr/bin/python3
"$PY" -c 'import numpy' 2>/dev/null || PY=python3
BUILD=$(cd "$(dirname "$TILEC")" && pwd)
expect 0 env -C "$SRC" PYTHONPATH="$SRC/python" TILEC_LIBRARY="$BUILD/libtilec.so" "$PY" "$WORK/snippet.py" && {
  err=$(head -1 "$WORK/out")
  "$PY" -c "import sys; sys.exit(not float('$err') < 1e-4)" || fail "the Python snippet's error is $err"
  contains "$WORK/out" '^kernel=add_rmsnorm; plan='
}
finish
