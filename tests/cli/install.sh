# make install, as a user sees it: `cmake --install` of this build into a
# temporary prefix, then
#  - bin/tilec --version; libtilec.so's SONAME, that it exports only
#    tilec_*/tir_* symbols (nm -D) and every function the installed headers
#    declare TILEC_API; libtilec.a's global symbols likewise;
#  - tests/install/consumer.c (softmax through the public API, checked in
#    double) built three ways against the prefix: as C with only
#    `pkg-config --cflags --libs tilec`, as C++ with g++, and as a CMake
#    project with find_package(tilec) → tilec::tilec; and statically against
#    libtilec.a with `pkg-config --static --libs tilec`; and docs/facade.md's
#    complete program, extracted from the page, built and run;
#  - libtilec_rt (no LLVM, only tilec_*/tir_* exported) and docs/aot.md's
#    complete program linked with `pkg-config tilec-rt` against softmax
#    compiled by the installed `tilec compile`, also as a CMake project
#    linking tilec::tilec_rt.
# A CMake project that add_subdirectory()s the source tree is configured
# (not built): it must see tilec::tilec and none of tilec's tests.
# Each consumer must run and print ok.  Skips (with a note) what a missing
# tool (pkg-config, g++, nm) prevents.
source "$(dirname "$0")/common.bash" "$@"
skip_in_sanitizer_build "the install consumers are not linked here"

BUILD=$(cd "$(dirname "$TILEC")" && pwd)
SRC=$(cd "$SRC" && pwd)
PREFIX=$WORK/prefix
VERSION=$(sed -n 's/^#define TILEC_VERSION_STRING "\(.*\)"$/\1/p' "$SRC/include/tilec/api.h")
expect 0 cmake --install "$BUILD" --prefix "$PREFIX" || finish
LIB=$PREFIX/lib
[ -d "$PREFIX/lib64" ] && LIB=$PREFIX/lib64

expect 0 "$PREFIX/bin/tilec" --version && contains "$WORK/out" "^tilec $VERSION \(LLVM 19\."
for f in include/tilec/tilec.h include/tilec/tir.h include/tilec/scalar.h include/tilec/diag.h include/tilec/api.h \
  include/tilec/runtime.h include/tilec/aot.h include/tilec/pipeline.h include/tilec/host.h include/tilec/cache.h; do
  [ -f "$PREFIX/$f" ] || fail "not installed: $f"
done
[ -f "$LIB/pkgconfig/tilec.pc" ] || fail "not installed: tilec.pc"
[ -f "$LIB/cmake/tilec/tilecConfig.cmake" ] || fail "not installed: tilecConfig.cmake"

MAJOR_MINOR=${VERSION%.*}
if command -v readelf >/dev/null; then
  expect 0 readelf -d "$LIB/libtilec.so" && contains "$WORK/out" "SONAME.*\[libtilec\.so\.$MAJOR_MINOR\]"
fi
if command -v nm >/dev/null; then
  # defined dynamic symbols other than tilec_*/tir_* (the linker's own
  # _init/_fini/_edata… never appear with --defined-only on a -shared build
  # that has no version script; any that do are listed)
  nm -D --defined-only "$LIB/libtilec.so" | awk '{print $NF}' | grep -Ev '^(tilec_|tir_)' >"$WORK/extra"
  [ -s "$WORK/extra" ] && fail "libtilec.so exports $(wc -l <"$WORK/extra") other symbols: $(head -5 "$WORK/extra" | tr '\n' ' ')"
  # exactly the TILEC_API declarations of the installed headers
  grep -ohE '^TILEC_API [^(]*\b(tilec|tir)_[a-z0-9_]+\(' "$PREFIX"/include/tilec/*.h |
    grep -oE '(tilec|tir)_[a-z0-9_]+\($' | tr -d '(' | sort >"$WORK/declared"
  nm -D --defined-only "$LIB/libtilec.so" | awk '{print $NF}' | sort >"$WORK/exported"
  [ "$(wc -l <"$WORK/declared")" -gt 100 ] || fail "found only $(wc -l <"$WORK/declared") TILEC_API declarations"
  comm -23 "$WORK/declared" "$WORK/exported" >"$WORK/extra"
  [ -s "$WORK/extra" ] && fail "declared TILEC_API but not exported: $(head -5 "$WORK/extra" | tr '\n' ' ')"
  nm -g --defined-only "$LIB/libtilec.a" | awk 'NF == 3 {print $3}' | grep -Ev '^(tilec_|tir_)' >"$WORK/extra"
  [ -s "$WORK/extra" ] && fail "libtilec.a has $(wc -l <"$WORK/extra") other global symbols: $(head -5 "$WORK/extra" | tr '\n' ' ')"
else
  echo "note: no nm; the exported-symbol checks are skipped"
fi

run_consumer() { # NAME BINARY: runs it on the softmax example
  expect 0 env LD_LIBRARY_PATH="$LIB" "$2" "$SRC/examples/softmax.tir" && contains "$WORK/out" "softmax 3x37 ok"
}
export PKG_CONFIG_PATH=$LIB/pkgconfig
if command -v pkg-config >/dev/null; then
  # shellcheck disable=SC2046
  expect 0 cc -std=c17 -Wall -Werror -o "$WORK/consumer_c" "$SRC/tests/install/consumer.c" \
    $(pkg-config --cflags --libs tilec) -lm && run_consumer c "$WORK/consumer_c"
  # shellcheck disable=SC2046
  expect 0 cc -std=c17 -Wall -Werror -o "$WORK/consumer_static" "$SRC/tests/install/consumer.c" \
    $(pkg-config --cflags tilec) "$LIB/libtilec.a" $(pkg-config --static --libs tilec | sed 's/-ltilec\b//') -lm &&
    run_consumer static "$WORK/consumer_static"
  if command -v ldd >/dev/null && [ -x "$WORK/consumer_static" ]; then
    ldd "$WORK/consumer_static" | grep -q libtilec && fail "the static consumer still needs libtilec.so"
  fi
  # docs/facade.md's complete program, as printed there
  awk '/^## A complete program/ { on = 1 } on && /^```c$/ { code = 1; next } code && /^```$/ { exit } code' \
    "$SRC/docs/facade.md" >"$WORK/facade_example.c"
  grep -q 'int main' "$WORK/facade_example.c" || fail "no C program under '## A complete program' in docs/facade.md"
  # shellcheck disable=SC2046
  expect 0 cc -std=c17 -Wall -Werror -o "$WORK/facade_example" "$WORK/facade_example.c" \
    $(pkg-config --cflags --libs tilec) &&
    expect 0 env LD_LIBRARY_PATH="$LIB" "$WORK/facade_example" && contains "$WORK/out" '^y\[999\] = 1999; kernel=axpy'
  if command -v g++ >/dev/null; then
    # shellcheck disable=SC2046
    expect 0 g++ -x c++ -std=c++17 -Wall -Werror -o "$WORK/consumer_cxx" "$SRC/tests/install/consumer.c" \
      $(pkg-config --cflags --libs tilec) && run_consumer c++ "$WORK/consumer_cxx"
  else
    echo "note: no g++; the C++ consumer is skipped"
  fi
else
  echo "note: no pkg-config; the pkg-config consumers are skipped"
fi

# the runtime library: no LLVM, only tilec_*/tir_* exported; docs/aot.md's
# complete program against softmax compiled ahead of time by the installed CLI
[ -f "$LIB/libtilec_rt.a" ] && [ -f "$PREFIX/include/tilec/aot.h" ] || fail "the runtime library is not installed"
if command -v readelf >/dev/null; then
  expect 0 readelf -d "$LIB/libtilec_rt.so" && contains "$WORK/out" "SONAME.*\[libtilec_rt\.so\.$MAJOR_MINOR\]" &&
    lacks "$WORK/out" 'NEEDED.*LLVM'
fi
if command -v nm >/dev/null; then
  nm -D --defined-only "$LIB/libtilec_rt.so" | awk '{print $NF}' | grep -Ev '^(tilec_|tir_)' >"$WORK/extra"
  [ -s "$WORK/extra" ] && fail "libtilec_rt.so exports other symbols: $(head -5 "$WORK/extra" | tr '\n' ' ')"
  nm -D --defined-only "$LIB/libtilec_rt.so" | grep -q ' T tilec_aot_call$' || fail "libtilec_rt.so lacks tilec_aot_call"
fi
if command -v pkg-config >/dev/null; then
  awk '/^## A complete program/ { on = 1 } on && /^```c$/ { code = 1; next } code && /^```$/ { exit } code' \
    "$SRC/docs/aot.md" >"$WORK/aot_example.c"
  grep -q 'int main' "$WORK/aot_example.c" || fail "no C program under '## A complete program' in docs/aot.md"
  expect 0 "$PREFIX/bin/tilec" compile "$SRC/examples/softmax.tir" -o "$WORK/softmax.o" --header "$WORK/softmax.h" &&
    # shellcheck disable=SC2046
    expect 0 cc -std=c17 -Wall -Werror -I"$WORK" -o "$WORK/aot_example" "$WORK/aot_example.c" "$WORK/softmax.o" \
      $(pkg-config --cflags --libs tilec-rt) &&
    expect 0 env LD_LIBRARY_PATH="$LIB" TILEC_THREADS=2 "$WORK/aot_example" &&
    contains "$WORK/out" '^row 0 sums to 1\.0000 on 2 workers$'
fi

AOT_CMAKE=()
[ -f "$WORK/softmax.o" ] && [ -f "$WORK/aot_example.c" ] &&
  AOT_CMAKE=(-DAOT_PROGRAM="$WORK/aot_example.c" -DAOT_OBJECT="$WORK/softmax.o" -DAOT_HEADER_DIR="$WORK")
expect 0 cmake -S "$SRC/tests/install" -B "$WORK/cmake-consumer" -DCMAKE_PREFIX_PATH="$PREFIX" "${AOT_CMAKE[@]}" &&
  expect 0 cmake --build "$WORK/cmake-consumer" &&
  run_consumer cmake "$WORK/cmake-consumer/consumer"
if [ ${#AOT_CMAKE[@]} -gt 0 ] && [ -x "$WORK/cmake-consumer/aot_consumer" ]; then
  expect 0 env LD_LIBRARY_PATH="$LIB" TILEC_THREADS=2 "$WORK/cmake-consumer/aot_consumer" &&
    contains "$WORK/out" '^row 0 sums to 1\.0000 on 2 workers$'
elif [ ${#AOT_CMAKE[@]} -gt 0 ]; then
  fail "the CMake project did not build aot_consumer against tilec::tilec_rt"
fi

mkdir -p "$WORK/sub"
cat >"$WORK/sub/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(uses_tilec C)
add_subdirectory("$SRC" tilec)
add_executable(consumer "$SRC/tests/install/consumer.c")
target_link_libraries(consumer PRIVATE tilec::tilec m)
CMAKE
if expect 0 cmake -S "$WORK/sub" -B "$WORK/sub/build"; then
  expect 0 cmake --build "$WORK/sub/build" --target help && {
    contains "$WORK/out" '(consumer|tilec_shared)'
    lacks "$WORK/out" 'test_'
  }
  [ -f "$WORK/sub/build/tilec/CTestTestfile.cmake" ] && fail "add_subdirectory(tilec) configured tilec's tests"
fi
finish
