# The pipeline's stages on the command line (docs/cli.md "Stages"):
# --print-after prints what `tilec plan` and `tilec lower` print for the
# same stage, in stage order, before the command's own output;
# --stop-after ends the run there (tilec run runs nothing); --verify-each
# checks every example; print --split is the split stage's print; bad
# stage names are usage errors.
source "$(dirname "$0")/common.bash" "$@"
GEMM="$SRC/examples/gemm.tir"
GQA_DECODE="-D B=1 -D Hq=8 -D Hkv=1 -D Lk=64 -D Lq=1 -D bq=1"

# What `plan` and `lower` print alone ...
expect 0 "$TILEC" plan "$GEMM" --workers 2 && cp "$WORK/out" "$WORK/plan"
expect 0 "$TILEC" lower "$GEMM" --workers 2 && cp "$WORK/out" "$WORK/lower"
expect 0 "$TILEC" print "$GEMM" && cp "$WORK/out" "$WORK/print"
# ... is what the stages print, in order, once each.
expect 0 "$TILEC" lower "$GEMM" --workers 2 --print-after plan &&
  { cat "$WORK/plan" "$WORK/lower" | cmp -s - "$WORK/out" || fail "lower --print-after plan is not plan then lower"; }
expect 0 "$TILEC" lower "$GEMM" --workers 2 --print-after lower,plan --print-after verify &&
  { cat "$WORK/print" "$WORK/plan" "$WORK/lower" | cmp -s - "$WORK/out" || fail "verify, plan, lower out of order"; }
expect 0 "$TILEC" plan "$GEMM" --print-after flatten --stop-after verify &&
  { cmp -s "$WORK/print" "$WORK/out" || fail "plan --stop-after verify printed more than the kernel"; }

# run: the host's stages (a zen4 host, named: W = 16, narrowed to the 8 lanes
# gemm's packet-local plan distributes: pipeline.c narrow_packets), then
# nothing runs after --stop-after.
expect 0 "$TILEC" run "$GEMM" --host zen4 --threads 2 --print-after plan --stop-after plan && {
  contains "$WORK/out" '^@gemm: plan for target cpu-thread-pool \(W=8, 2 workers'
  lacks "$WORK/out" 'native \(W='
}
expect 0 "$TILEC" run "$GEMM" --host zen4 --threads 1 --print-after emit -D M=8 -D N=8 -D K=8 -D BM=8 -D BN=8 -D BK=8 && {
  contains "$WORK/out" '^define .*@'
  contains "$WORK/out" '^@gemm: native \(W=8, 1 workers\)'
}
# a width asked for is kept, by option or by TILEC_SIMD_WIDTH
expect 0 "$TILEC" run "$GEMM" --host zen4 --threads 1 --width 16 --check &&
  contains "$WORK/out" '^@gemm: native \(W=16, 1 workers\)'
TILEC_SIMD_WIDTH=16 expect 0 "$TILEC" run "$GEMM" --host zen4 --threads 1 --check &&
  contains "$WORK/out" '^@gemm: native \(W=16, 1 workers\)'
# run --xir prints the modeled target's lowering, as `tilec lower` does.
expect 0 "$TILEC" run "$GEMM" --xir --workers 2 --print-after lower && {
  head -c "$(wc -c <"$WORK/lower")" "$WORK/out" | cmp -s - "$WORK/lower" || fail "run --xir --print-after lower != lower"
  contains "$WORK/out" '^@gemm: XIR interpreter \(W=8'
}
expect 0 "$TILEC" run "$GEMM" --xir --stop-after lower && lacks "$WORK/out" 'XIR interpreter'

# The split stage: the partial and combine kernels, or why not.
expect 0 "$TILEC" run "$SRC/examples/attention_gqa.tir" $GQA_DECODE --split on --print-after split --stop-after split &&
  {
    contains "$WORK/out" "^// @attention_gqa: 'kb' \\(22 trips\\) in [0-9]+ chunks"
    contains "$WORK/out" '^kernel @attention_gqa_partial\('
    contains "$WORK/out" '^kernel @attention_gqa_combine\('
  }
expect 0 "$TILEC" lower "$SRC/examples/softmax.tir" --print-after split --stop-after split &&
  contains "$WORK/out" '^// @softmax: not split: no reduce with a combine block directly in the root program$'
expect 0 "$TILEC" print "$SRC/examples/attention_gqa.tir" $GQA_DECODE --split 3 && {
  contains "$WORK/out" "^// @attention_gqa: 'kb' \\(22 trips\\) in 3 chunks of 7 \\(the first ones one more\\) over 1 program: modeled"
  contains "$WORK/out" '^kernel @attention_gqa_combine\('
}
expect 1 "$TILEC" print "$SRC/examples/softmax.tir" --split 3 &&
  contains "$WORK/err" 'tilec print: error: @softmax cannot be split into 3 chunks: no reduce with a combine block directly in the root program$'

# Every stage's check, on every example, on the modeled target and the XIR engine.
for f in "$SRC"/examples/*.tir; do
  expect 0 "$TILEC" lower "$f" --verify-each || fail "lower --verify-each $f"
done
expect 0 "$TILEC" run "$GEMM" --xir --verify-each && contains "$WORK/out" 'XIR interpreter'

# Names that are no stage.
expect 2 "$TILEC" plan "$GEMM" --print-after codegen &&
  contains "$WORK/err" "--print-after: 'codegen' is not a stage \\(flatten, verify, plan, split, lower or emit\\)"
expect 2 "$TILEC" lower "$GEMM" --print-after plan, && contains "$WORK/err" "--print-after: '' is not a stage"
expect 2 "$TILEC" run "$GEMM" --stop-after plan,lower && contains "$WORK/err" '--stop-after takes one stage'
expect 2 "$TILEC" run "$GEMM" --reference --print-after plan && contains "$WORK/err" 'do not apply to --reference'
expect 2 "$TILEC" bench "$GEMM" --print-after plan
finish
