# The disk kernel cache (docs/simd.md "Kernel cache"), through the CLI: a
# second process compiling the same kernel links it from the disk (no LLVM
# pipeline: optimize_ms=0) and computes bitwise the same; another width or
# shape misses; a truncated or garbled entry is removed and rebuilt (and the
# result still checks); TILEC_CACHE=0 and =memory write nothing; two
# processes filling an empty cache at once both succeed and leave one
# entry; the size cap evicts; `tilec cache stats|clear`.
source "$(dirname "$0")/common.bash" "$@"

unset TILEC_CACHE
export TILEC_CACHE_DIR=$WORK/cache
K=$SRC/examples/gemm.tir
item() { grep -o "$1=[^;]*" "$WORK/out" | head -1 | cut -d= -f2; }
sum() { grep -o 'checksum=[0-9a-f]*' "$WORK/out"; }

expect 0 "$TILEC" run "$K" --width 16 --check && { [ "$(item cache)" = miss ] || fail "first run: cache=$(item cache)"; }
first=$(sum)
expect 0 "$TILEC" cache stats && contains "$WORK/out" "^kernel cache $WORK/cache: 1 entries, [0-9]+ bytes"
expect 0 "$TILEC" run "$K" --width 16 --check && {
  [ "$(item cache)" = disk ] || fail "second run: cache=$(item cache)"
  [ "$(item optimize_ms)" = 0.000 ] || fail "a disk hit ran LLVM's pipeline: optimize_ms=$(item optimize_ms)"
  [ "$(sum)" = "$first" ] || fail "the cached kernel computes differently: $(sum) vs $first"
}
expect 0 "$TILEC" run "$K" --width 8 && { [ "$(item cache)" = miss ] || fail "another width: cache=$(item cache)"; }
expect 0 "$TILEC" run "$K" --width 16 -D N=96 && { [ "$(item cache)" = miss ] || fail "another shape: cache=$(item cache)"; }

# damaged entries: truncated, then a flipped byte in the object code
for damage in "truncate -s 100" "flip"; do
  for f in "$WORK"/cache/*.tko; do
    if [ "$damage" = flip ]; then
      size=$(stat -c %s "$f")
      printf '\x5a' | dd of="$f" bs=1 seek=$((size - 10)) conv=notrunc status=none
    else
      $damage "$f"
    fi
  done
  expect 0 "$TILEC" run "$K" --width 16 --check && {
    [ "$(item cache)" = rebuilt ] || fail "$damage entry: cache=$(item cache)"
    contains "$WORK/out" 'vs reference: max abs err .*, ok$'
  }
  expect 0 "$TILEC" run "$K" --width 16 && { [ "$(item cache)" = disk ] || fail "after rebuilding: cache=$(item cache)"; }
done

: >"$WORK/cache/.tmp-999-dead" # a write a killed process never finished
expect 0 "$TILEC" cache clear && contains "$WORK/out" "removed [0-9]+ entries"
[ -e "$WORK/cache/.tmp-999-dead" ] && fail "cache clear left an unfinished write behind"
for mode in 0 memory; do
  expect 0 env TILEC_CACHE=$mode "$TILEC" run "$K" --width 16 && {
    [ "$(item cache)" = "$([ $mode = 0 ] && echo off || echo miss)" ] || fail "TILEC_CACHE=$mode: cache=$(item cache)"
  }
done
[ -z "$(ls "$WORK"/cache)" ] || fail "TILEC_CACHE=0/memory wrote the disk cache: $(ls "$WORK"/cache)"

# two processes at once on an empty cache
"$TILEC" run "$K" --width 4 >"$WORK/p1" 2>&1 &
p1=$!
"$TILEC" run "$K" --width 4 >"$WORK/p2" 2>&1
s2=$?
wait $p1
s1=$?
[ "$s1" = 0 ] && [ "$s2" = 0 ] || fail "concurrent runs failed: $s1 $s2 $(tail -2 "$WORK/p1" "$WORK/p2")"
[ "$(ls "$WORK"/cache/*.tko | wc -l)" = 1 ] || fail "concurrent runs left $(ls "$WORK"/cache | wc -l) files: $(ls -a "$WORK"/cache)"

# the size cap: with a 0 MiB cap every store trims the directory to nothing
expect 0 env TILEC_CACHE_MAX_MB=0 "$TILEC" run "$K" --width 2 && [ -z "$(ls "$WORK"/cache)" ] ||
  fail "TILEC_CACHE_MAX_MB=0 kept $(ls "$WORK"/cache)"
expect 2 "$TILEC" cache frobnicate && contains "$WORK/err" "expected stats or clear"
finish
