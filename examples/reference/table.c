/* table.c — the list of examples with references, shape lookup and the shared
 * input accessor. */
#include "kernels.h"

#include <string.h>

const example_entry example_table[] = {
    {"gemm", example_gemm},
    {"gemm_bt", example_gemm_bt},
    {"gemm_bf16", example_gemm_bf16},
    {"bmm", example_bmm},
    {"softmax", example_softmax},
    {"masked_softmax", example_masked_softmax},
    {"layernorm", example_layernorm},
    {"rmsnorm", example_rmsnorm},
    {"rmsnorm_bf16", example_rmsnorm_bf16},
    {"rope", example_rope},
    {"rope_table", example_rope_table},
    {"rope_interleaved", example_rope_interleaved},
    {"transpose", example_transpose},
    {"gelu", example_gelu},
    {"gelu_erf", example_gelu_erf},
    {"swiglu", example_swiglu},
    {"attention", example_attention},
    {"attention_gqa", example_attention}, /* Q and O [B, Hkv, G, L, D]: the same memory as [B, Hq, L, D] */
};
const size_t example_count = sizeof example_table / sizeof example_table[0];

const example_entry *example_find(const char *name) {
    for (size_t i = 0; i < example_count; i++)
        if (!strcmp(example_table[i].name, name)) return &example_table[i];
    return NULL;
}

int64_t example_shape(const tir_func *f, const char *name, int64_t fallback) {
    for (size_t i = 0; i < tir_func_shape_param_count(f); i++) {
        int64_t value;
        const char *p = tir_func_shape_param(f, i, &value);
        if (!strcmp(p, name)) return value;
    }
    return fallback;
}

const void *example_input(const tir_func *f, const void *const *args, size_t i, tir_scalar elem) {
    if (i >= tir_func_param_count(f) || !args[i]) return NULL;
    if (tir_type_elem(tir_value_type(tir_func_param(f, i))) != elem) return NULL;
    return args[i];
}

const float *example_f32_input(const tir_func *f, const void *const *args, size_t i) {
    return example_input(f, args, i, TIR_F32);
}

/* bf16 is the upper half of an f32: the widening is a shift, exact. */
double example_bf16_at(const void *data, int64_t i) {
    uint32_t bits = (uint32_t)((const uint16_t *)data)[i] << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}
