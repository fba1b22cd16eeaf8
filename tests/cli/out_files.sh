# run --out writes through a temporary file renamed into place: a failed write
# (a full device, a file-size limit, a read-only directory) reports why, exits
# 1 and never removes or changes an existing file, nor leaves a temporary file;
# devices and FIFOs are written in place and never removed.
source "$(dirname "$0")/common.bash" "$@"
K="$SRC/tests/kernels/cli_copy.tir"
run_copy() { "$TILEC" run "$K" --kernel cli_copy --reference "$@"; }
no_leftovers() { [ -z "$(find "$1" -maxdepth 1 -name '.*.npy.*')" ] || fail "temporary files left in $1: $(ls -A "$1")"; }

# The reference output, written to a new file.
expect 0 run_copy --out Y="$WORK/y.npy" && no_leftovers "$WORK"
[ "$(stat -c %a "$WORK/y.npy")" = "$(printf '%o' $((0666 & ~0$(umask))))" ] || fail "new file mode $(stat -c %a "$WORK/y.npy")"
# Replacing keeps the permission bits of the existing file.
chmod 640 "$WORK/y.npy"
expect 0 run_copy --seed 9 --out Y="$WORK/y.npy" && [ "$(stat -c %a "$WORK/y.npy")" = 640 ] || fail "mode not kept"
expect 0 run_copy --out Y="$WORK/y.npy"

# /dev/full: a clear error, and the device node is still there (the old
# writer removed the target after a failed write).
if [ -c /dev/full ]; then
  expect 1 run_copy --out Y=/dev/full &&
    contains "$WORK/err" 'error\[TILEC-IO01\]: /dev/full: cannot write: No space left on device'
  [ -c /dev/full ] || fail "/dev/full is gone"
fi
expect 0 run_copy --out Y=/dev/null && [ -c /dev/null ] || fail "/dev/null"

# A FIFO gets the bytes in place and stays a FIFO.
mkfifo "$WORK/fifo"
cat "$WORK/fifo" >"$WORK/from-fifo.npy" &
reader=$!
expect 0 run_copy --out Y="$WORK/fifo"
wait "$reader"
cmp -s "$WORK/from-fifo.npy" "$WORK/y.npy" || fail "the FIFO did not carry the file"
[ -p "$WORK/fifo" ] || fail "the FIFO was replaced"

# A symbolic link is followed: the file it names is replaced, the link stays.
cp "$WORK/y.npy" "$WORK/expected.npy"
echo old >"$WORK/target.npy"
ln -s target.npy "$WORK/link.npy"
expect 0 run_copy --out Y="$WORK/link.npy"
[ -L "$WORK/link.npy" ] && cmp -s "$WORK/target.npy" "$WORK/expected.npy" || fail "symlink target not replaced"

# A write that fails midway (past the file-size limit, with SIGXFSZ ignored
# so that write() reports EFBIG) keeps the existing file and its contents.
echo precious >"$WORK/kept.npy"
expect 1 bash -c 'trap "" XFSZ; ulimit -f 1; exec "$@"' _ "$TILEC" run "$K" --kernel cli_copy --reference -D M=64 \
  --out Y="$WORK/kept.npy" &&
  contains "$WORK/err" 'kept.npy: cannot write: File too large; the existing file is unchanged'
[ "$(cat "$WORK/kept.npy")" = precious ] || fail "a failed write changed the existing file"
no_leftovers "$WORK"

# A read-only directory cannot hold the temporary file: refused, the file as
# it was; a read-only file is refused too.  Root ignores permissions, so as
# root the runs are made as nobody.
mkdir "$WORK/ro" && echo precious >"$WORK/ro/kept.npy" && chmod 666 "$WORK/ro/kept.npy" && chmod 555 "$WORK/ro"
as_user=()
if [ "$(id -u)" = 0 ]; then
  chmod 711 "$WORK"
  command -v setpriv >/dev/null && as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
if [ "$(id -u)" != 0 ] || [ ${#as_user[@]} -gt 0 ]; then
  expect 1 "${as_user[@]}" "$TILEC" run "$K" --kernel cli_copy --reference --out Y="$WORK/ro/kept.npy" &&
    contains "$WORK/err" 'kept.npy: cannot create a temporary file next to it .*Permission denied; the existing file is unchanged'
  [ "$(cat "$WORK/ro/kept.npy")" = precious ] || fail "the file in the read-only directory changed"
  no_leftovers "$WORK/ro"
  # A read-only file in a writable directory is not replaced either.
  mkdir -m 777 "$WORK/rw" && echo precious >"$WORK/rw/locked.npy" && chmod 444 "$WORK/rw/locked.npy"
  expect 1 "${as_user[@]}" "$TILEC" run "$K" --kernel cli_copy --reference --out Y="$WORK/rw/locked.npy" &&
    contains "$WORK/err" 'locked.npy: cannot write: Permission denied; the existing file is unchanged'
  [ "$(cat "$WORK/rw/locked.npy")" = precious ] || fail "the read-only file changed"
  no_leftovers "$WORK/rw"
else
  echo "note: root without setpriv; the read-only directory case is skipped"
fi
chmod 755 "$WORK/ro"

# Every --out is attempted: one failing does not stop the next.
expect 1 run_copy --out Y="$WORK/no/dir/y.npy" --out X="$WORK/x.npy" && contains "$WORK/err" 'TILEC-IO01'
[ -s "$WORK/x.npy" ] || fail "the second --out was not written"
finish
