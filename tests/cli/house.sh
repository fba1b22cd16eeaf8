# scripts/check-house.sh holds on this tree, and names each rule it checks
# when one violation of that rule is planted in a scratch copy of the tree.
source "$(dirname "$0")/common.bash" "$@"
CHECK="$SRC/scripts/check-house.sh"
expect 0 bash "$CHECK" "$SRC" && contains "$WORK/out" "every rule holds"

# A scratch copy: the tracked files and the new ones not ignored.
COPY="$WORK/tree"
mkdir -p "$COPY"
(cd "$SRC" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$COPY"
git -C "$COPY" init -q && git -C "$COPY" add -A && git -C "$COPY" -c user.name=t -c user.email=t@t commit -qm base ||
  fail "cannot make the scratch copy"
expect 0 bash "$CHECK" "$COPY"

# plant RULE FILE TEXT: TEXT appended to FILE makes check-house name RULE.
plant() {
  local rule=$1 file=$2 text=$3
  printf '%s\n' "$text" >>"$COPY/$file"
  expect 1 bash "$CHECK" "$COPY" && contains "$WORK/out" "^house: $rule: "
  git -C "$COPY" checkout -q -- . && git -C "$COPY" clean -fdq
}
plant layers src/tir/module.c '#include "plan/solve.h"'
plant ir-below-tir src/xir/module.c '#include "tir/ir.h"'
plant public-only tools/tilec/run.c '#include "plan/solve.h"'
plant public-only bench/harness.c '#include "base/strbuf.h"'
on='"on",' off='"off"' # kept apart here, so this file does not spell them itself
plant option-words tools/tilec/run.c "static const char *const WORDS[] = {$on $off};"
plant stage-callers tools/tilec/run.c 'static void probe(void) { plan_kernel(0, 0, 0, 0, 0); }'
plant stage-callers tests/lower/test_admit.c 'static void probe(void) { simd_compile(0, 0, 0, 0, 0); }'
plant option-copies src/simd/jit.c 'typedef struct { uint32_t width; bool capture_ir, capture_asm; } house_copy_probe;'
plant one-compile-c src/lower/compile.c '/* compile.c */'
plant citations src/base/arena.c "/* as iss""ue 12 says */"
plant dead-functions src/base/arena.c 'int house_unused_probe(void) { return 1; }'
sed -i 's|foreach(source base/context.c|foreach(source tir/module.c base/context.c|' "$COPY/CMakeLists.txt"
expect 1 bash "$CHECK" "$COPY" && contains "$WORK/out" "^house: rt-no-tir: "
finish
