# The Python package (python/tilec) in make test: its pytest suite
# (python/tests, every example against NumPy, argument checks, errors,
# in-place outputs, the GIL) on this build's libtilec.so, in place
# (PYTHONPATH=python); then `pip install ./python` into a scratch directory
# and the installed package loading the library from $TILEC_LIBRARY; and
# `tilec generate` on the tiny Llama config.
# Needs NumPy and pytest (scripts/install-deps installs python3-numpy and
# python3-pytest); pip's part is skipped with a note when pip is missing.
source "$(dirname "$0")/common.bash" "$@"

BUILD=$(cd "$(dirname "$TILEC")" && pwd)
SRC=$(cd "$SRC" && pwd)
skip_in_sanitizer_build "Python cannot load its libtilec.so here"
PY=/usr/bin/python3
"$PY" -c 'import numpy, pytest' 2>/dev/null || PY=python3
if ! "$PY" -c 'import numpy, pytest' 2>"$WORK/err"; then
  fail "no Python with numpy and pytest (scripts/install-deps installs python3-numpy python3-pytest): $(tail -1 "$WORK/err")"
  finish
fi
export TILEC_LIBRARY=$BUILD/libtilec.so
if ! TILEC_CLI="$TILEC" PYTHONPATH=$SRC/python "$PY" -m pytest -q -p no:cacheprovider "$SRC/python/tests" >"$WORK/out" 2>&1; then
  fail "pytest python/tests failed"
  tail -40 "$WORK/out" >&2
fi
tail -1 "$WORK/out"

# `tilec generate` runs the package's decoder (tilec.models.llama): the tiny
# config's first greedy tokens, as transformers picks them
# (models/llama/reference/tiny.npz, python/tests/test_llama.py)
expect 0 env TILEC_PYTHON="$PY" "$TILEC" generate -n 4 --threads 2 &&
  contains "$WORK/out" "^67,78,1,18$"

if "$PY" -m pip --version >/dev/null 2>&1; then
  # from a copy: setuptools builds in the source directory (build/, *.egg-info)
  mkdir -p "$WORK/pkg" && cp -r "$SRC/python/pyproject.toml" "$SRC/python/tilec" "$WORK/pkg/"
  expect 0 "$PY" -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps \
    --target "$WORK/site" "$WORK/pkg" &&
    expect 0 env -C "$WORK" PYTHONPATH="$WORK/site" "$PY" -c \
      'import tilec, sys; print(tilec.__file__, tilec.version()); sys.exit(tilec.version() != tilec.__version__)' &&
    contains "$WORK/out" "^$WORK/site/tilec/__init__.py "
else
  echo "note: no pip for $PY; pip install ./python is not checked"
fi
finish
