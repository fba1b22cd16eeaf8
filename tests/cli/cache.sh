# The disk kernel cache (docs/simd.md "Kernel cache"), through the CLI: a
# second process compiling the same kernel links it from the disk (no LLVM
# pipeline: optimize_ms=0) and computes bitwise the same; another width or
# shape misses; a truncated or garbled entry is removed and rebuilt (and the
# result still checks); TILEC_CACHE=0 and =memory write nothing; two
# processes filling an empty cache at once both succeed and leave one
# entry; the size cap evicts; `tilec cache stats|clear`.  The trust model
# (docs/simd.md): the directory is made 0700, and one that is not a directory,
# not the user's or writable by others is refused with SIMD-C01 (the compile
# still succeeds, uncached); entries that are symlinks, FIFOs, oversized or
# writable by others are never read, and nothing tilec did not write is
# deleted by `clear` or the size cap; a malformed TILEC_CACHE_MAX_MB
# (SIMD-C02) deletes nothing; tune.tsv is not written through a symlink.
source "$(dirname "$0")/common.bash" "$@"

unset TILEC_CACHE
export TILEC_CACHE_DIR=$WORK/cache
K=$SRC/examples/gemm.tir
item() { grep -o "$1=[^;]*" "$WORK/out" | head -1 | cut -d= -f2; }
sum() { grep -o 'checksum=[0-9a-f]*' "$WORK/out"; }

expect 0 "$TILEC" run "$K" --width 16 --check && { [ "$(item cache)" = miss ] || fail "first run: cache=$(item cache)"; }
first=$(sum)
[ "$(stat -c %a "$WORK/cache")" = 700 ] || fail "the cache directory was made with mode $(stat -c %a "$WORK/cache"), not 700"
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
expect 2 "$TILEC" cache stats extra && contains "$WORK/err" "unexpected argument 'extra'"
expect 2 "$TILEC" cache && contains "$WORK/err" "missing stats or clear"
for h in -h --help; do
  expect 0 "$TILEC" cache stats $h && contains "$WORK/out" '^usage: tilec cache'
  expect 0 "$TILEC" cache $h && contains "$WORK/out" '^usage: tilec cache'
done

# ---- the trust model ----
expect 0 "$TILEC" run "$K" --width 16 && { [ "$(item cache)" = miss ] || fail "refill: cache=$(item cache)"; }
entry=$(ls "$WORK"/cache/*.tko)
cp "$entry" "$WORK/good.tko" # a valid entry, for planting elsewhere

# directories that are refused: SIMD-C01 on stderr, compiled uncached, nothing read or written there
mkdir -m 0777 "$WORK/open"
mkdir -m 0770 "$WORK/shared"
: >"$WORK/plain"
refused=("$WORK/open:writable by group or others" "$WORK/shared:writable by group or others" "$WORK/plain:not a directory")
if [ "$(id -u)" = 0 ]; then # only root can give a directory away
  mkdir -m 0700 "$WORK/theirs" && chown 65534 "$WORK/theirs" && refused+=("$WORK/theirs:owned by uid 65534")
fi
for r in "${refused[@]}"; do
  d=${r%%:*}
  [ -d "$d" ] && cp "$WORK/good.tko" "$d/${entry##*/}"
  expect 0 env TILEC_CACHE_DIR="$d" "$TILEC" run "$K" --width 16 --check && {
    [ "$(item cache)" = miss ] || fail "refused directory $d: cache=$(item cache)"
    contains "$WORK/err" "warning\[SIMD-C01\]: kernel cache directory '$d' .*${r#*:}"
    [ "$(grep -c 'SIMD-C01' "$WORK/err")" = 1 ] || fail "SIMD-C01 said $(grep -c 'SIMD-C01' "$WORK/err") times, not once"
  }
  [ ! -d "$d" ] || [ "$(ls -A "$d")" = "${entry##*/}" ] || fail "wrote into the refused directory $d: $(ls -A "$d")"
  expect 1 env TILEC_CACHE_DIR="$d" "$TILEC" cache clear && contains "$WORK/err" "SIMD-C01"
  [ ! -d "$d" ] || [ -e "$d/${entry##*/}" ] || fail "cache clear emptied the refused directory $d"
done

# entries that are never read (a miss) and never deleted: a symlink to a
# valid entry, one writable by others, a FIFO (opening it must not wait for a
# writer: the timeout only keeps a regression from hanging the suite)
rm -f "$entry"
ln -s "$WORK/good.tko" "$entry"
expect 0 "$TILEC" run "$K" --width 16 && { [ "$(item cache)" = miss ] || fail "symlinked entry: cache=$(item cache)"; }
[ -L "$entry" ] && cmp -s "$entry" "$WORK/good.tko" || fail "the symlinked entry or its target changed"
rm -f "$entry"
cp "$WORK/good.tko" "$entry" && chmod 0664 "$entry"
expect 0 "$TILEC" run "$K" --width 16 && { [ "$(item cache)" = miss ] || fail "group-writable entry: cache=$(item cache)"; }
[ -e "$entry" ] || fail "a group-writable entry was deleted"
rm -f "$entry"
mkfifo "$entry"
expect 0 timeout 120 "$TILEC" run "$K" --width 16 && { [ "$(item cache)" = miss ] || fail "FIFO entry: cache=$(item cache)"; }
[ -p "$entry" ] || fail "the FIFO named like an entry was removed or replaced"

# clear and the size cap delete only files named and made like entries
: >"$WORK/cache/notes.tko"
: >"$WORK/cache/0123456789ABCDEF.tko"
: >"$WORK/cache/0123456789abcdef.tko.bak"
: >"$WORK/cache/.tmp-important"
: >"$WORK/cache/.tmp-12-x"
cp "$WORK/good.tko" "$WORK/cache/00000000000000aa.tko" && chmod 0666 "$WORK/cache/00000000000000aa.tko"
ln -s "$WORK/good.tko" "$WORK/cache/00000000000000bb.tko"
mkdir "$WORK/cache/00000000000000cc.tko"
foreign=$(cd "$WORK/cache" && ls -A | sort) # the FIFO too
expect 0 "$TILEC" run "$K" --width 8 && { [ "$(item cache)" = miss ] || fail "width 8: cache=$(item cache)"; }
expect 0 "$TILEC" cache stats && contains "$WORK/out" ": 1 entries, "
expect 0 env TILEC_CACHE_MAX_MB=0 "$TILEC" run "$K" --width 2
[ "$(cd "$WORK/cache" && ls -A | sort)" = "$foreign" ] ||
  fail "the size cap removed files tilec never wrote: $(cd "$WORK/cache" && ls -A | tr '\n' ' ')"
expect 0 "$TILEC" run "$K" --width 8
expect 0 "$TILEC" cache clear && contains "$WORK/out" "removed 1 entries"
[ "$(cd "$WORK/cache" && ls -A | sort)" = "$foreign" ] ||
  fail "cache clear removed files tilec never wrote: $(cd "$WORK/cache" && ls -A | tr '\n' ' ')"
cmp -s "$WORK/good.tko" "$WORK/cache/00000000000000aa.tko" || fail "a foreign file named like an entry changed"
rm -rf "$WORK/cache" && mkdir -m 0700 "$WORK/cache"

# an oversized entry (a sparse 2 GiB file) is removed unread and rebuilt
expect 0 "$TILEC" run "$K" --width 16
truncate -s 2G "$entry"
expect 0 "$TILEC" run "$K" --width 16 --check && { [ "$(item cache)" = rebuilt ] || fail "2 GiB entry: cache=$(item cache)"; }
[ "$(stat -c %s "$entry")" -lt 1000000 ] || fail "the 2 GiB entry is still there"

# a malformed size cap: SIMD-C02, nothing deleted
expect 0 "$TILEC" run "$K" --width 8
for cap in abc -5 17592186044416 12x; do
  expect 0 env TILEC_CACHE_MAX_MB=$cap "$TILEC" run "$K" --width 4 &&
    contains "$WORK/err" "warning\[SIMD-C02\]: TILEC_CACHE_MAX_MB='$cap' "
  [ "$(ls "$WORK"/cache/*.tko | wc -l)" = 3 ] || fail "TILEC_CACHE_MAX_MB=$cap left $(ls "$WORK"/cache | tr '\n' ' ')"
  rm -f "$(ls -t "$WORK"/cache/*.tko | head -1)" # the width-4 entry, so the next run stores again
  expect 0 env TILEC_CACHE_MAX_MB=$cap "$TILEC" cache stats && contains "$WORK/out" "no cap: TILEC_CACHE_MAX_MB is malformed"
done

# tune.tsv is not written through a symlink
: >"$WORK/victim"
ln -s "$WORK/victim" "$WORK/cache/tune.tsv"
expect 0 "$TILEC" tune "$K" --param BM=8 --threads 1 && contains "$WORK/out" '^tune: 1 combinations .*cache off'
[ -s "$WORK/victim" ] && fail "tune appended through the symlink tune.tsv: $(cat "$WORK/victim")"
finish
