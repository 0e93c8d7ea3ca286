"""Differential cases: scaled_dot_product_attention, MultiheadAttention, Transformer layers."""
from tests.differential.case import Case, T

F = "torch.nn.functional."
M = "torch.nn."
CASES: list[Case] = []
add = CASES.append
B = lambda *s: T(*s, dtype="bool")

for args, kw in [
    ((T(2, 4, 5, 8), T(2, 4, 6, 8), T(2, 4, 6, 3)), {}), ((T(2, 4, 5, 8), T(2, 4, 6, 7), T(2, 4, 6, 3)), {}),
    ((T(2, 4, 5, 8), T(2, 4, 6, 8), T(2, 4, 7, 3)), {}), ((T(2, 4, 5, 8), T(1, 4, 6, 8), T(2, 4, 6, 3)), {}),
    ((T(2, 4, 5, 8), T(3, 4, 6, 8), T(3, 4, 6, 3)), {}), ((T(5, 8), T(6, 8), T(6, 3)), {}), ((T(8), T(8), T(8)), {}),
    ((T(2, 5, 8), T(6, 8), T(6, 3)), {}), ((T(2, 4, 5, 8), T(2, 4, 6, 8), T(2, 4, 6, 3)), {"attn_mask": T(5, 6)}),
    ((T(2, 4, 5, 8), T(2, 4, 6, 8), T(2, 4, 6, 3)), {"attn_mask": T(5, 7)}),
    ((T(2, 4, 5, 8), T(2, 4, 6, 8), T(2, 4, 6, 3)), {"attn_mask": T(3, 1, 5, 6)}),
    ((T(2, 4, 5, 8), T(2, 4, 6, 8), T(2, 4, 6, 3)), {"attn_mask": B(2, 1, 1, 6)}),
    ((T(2, 4, 5, 8), T(2, 4, 6, 8), T(2, 4, 6, 3)), {"is_causal": True}),
    ((T(2, 4, 5, 8), T(2, 4, 6, 8), T(2, 4, 6, 3)), {"attn_mask": T(5, 6), "is_causal": True}),
    ((T(2, 8, 5, 8), T(2, 2, 6, 8), T(2, 2, 6, 3)), {"enable_gqa": True}),
    ((T(2, 8, 5, 8), T(2, 3, 6, 8), T(2, 3, 6, 3)), {"enable_gqa": True}),
    ((T(2, 8, 5, 8), T(2, 2, 6, 8), T(2, 2, 6, 3)), {}), ((T(2, 4, 5, 8), T(2, 4, 6, 8), T(2, 4, 6, 3, dtype="float64")), {}),
    ((T(2, 4, 0, 8), T(2, 4, 6, 8), T(2, 4, 6, 3)), {}), ((T(2, 4, 5, 8), T(2, 4, 6, 8), T(2, 4, 6, 3)), {"dropout_p": 0.5, "scale": 0.1}),
    ((T(3, 2, 4, 5, 8), T(3, 2, 4, 6, 8), T(3, 2, 4, 6, 8)), {}),
]:
    add(Case(F + "scaled_dot_product_attention", args, kw))

for ctor, ckw, args, kw in [
    ((16, 3), {}, (T(5, 2, 16), T(6, 2, 16), T(6, 2, 16)), {}),
    ((16, 4), {}, (T(5, 2, 16), T(6, 2, 16), T(6, 2, 16)), {}),
    ((16, 4), {"batch_first": True}, (T(2, 5, 16), T(2, 6, 16), T(2, 6, 16)), {}),
    ((16, 4), {}, (T(5, 2, 16), T(6, 2, 16), T(6, 2, 16)), {"need_weights": False}),
    ((16, 4), {}, (T(5, 2, 16), T(6, 2, 16), T(6, 2, 16)), {"average_attn_weights": False}),
    ((16, 4), {}, (T(5, 16), T(6, 16), T(6, 16)), {}),
    ((16, 4), {}, (T(5, 16), T(6, 16), T(6, 16)), {"average_attn_weights": False}),
    ((16, 4), {}, (T(5, 2, 15), T(6, 2, 16), T(6, 2, 16)), {}),
    ((16, 4), {}, (T(5, 2, 16), T(6, 2, 15), T(6, 2, 15)), {}),
    ((16, 4), {}, (T(5, 2, 16), T(6, 2, 16), T(7, 2, 16)), {}),
    ((16, 4), {}, (T(5, 2, 16), T(6, 3, 16), T(6, 3, 16)), {}),
    ((16, 4), {"kdim": 10, "vdim": 12}, (T(5, 2, 16), T(6, 2, 10), T(6, 2, 12)), {}),
    ((16, 4), {"kdim": 10, "vdim": 12}, (T(5, 2, 16), T(6, 2, 11), T(6, 2, 12)), {}),
    ((16, 4), {"kdim": 10, "vdim": 12}, (T(5, 2, 16), T(6, 2, 10), T(6, 2, 11)), {}),
    ((16, 4), {"kdim": 10, "vdim": 12, "batch_first": True}, (T(2, 5, 16), T(2, 6, 10), T(2, 6, 12)), {}),
    ((16, 4), {}, (T(5, 2, 16), T(6, 2, 16), T(6, 2, 16)), {"key_padding_mask": B(2, 6)}),
    ((16, 4), {}, (T(5, 2, 16), T(6, 2, 16), T(6, 2, 16)), {"key_padding_mask": B(2, 5)}),
    ((16, 4), {}, (T(5, 2, 16), T(6, 2, 16), T(6, 2, 16)), {"attn_mask": B(5, 6)}),
    ((16, 4), {}, (T(5, 2, 16), T(6, 2, 16), T(6, 2, 16)), {"attn_mask": B(6, 6)}),
    ((16, 4), {}, (T(5, 2, 16), T(6, 2, 16), T(6, 2, 16)), {"attn_mask": B(8, 5, 6)}),
    ((16, 4), {}, (T(5, 2, 16), T(6, 2, 16), T(6, 2, 16)), {"attn_mask": B(2, 5, 6)}),
    ((16, 4), {}, (T(5, 2, 16), T(6, 2, 16), T(6, 2, 16)), {"attn_mask": B(5, 6, 1)}),
    ((16, 4), {}, (T(5, 16), T(6, 16), T(6, 16)), {"attn_mask": B(4, 5, 6)}),
    ((16, 4), {}, (T(5, 16), T(6, 16), T(6, 16)), {"key_padding_mask": B(6)}),
    ((16, 4), {}, (T(5, 16), T(6, 2, 16), T(6, 2, 16)), {}),
    ((16, 4), {}, (T(5, 2, 16), T(6, 16), T(6, 16)), {}),
    ((16, 4), {}, (T(16), T(16), T(16)), {}),
    ((16, 4), {"add_bias_kv": True}, (T(5, 2, 16), T(6, 2, 16), T(6, 2, 16)), {}),
    ((16, 4), {"add_zero_attn": True}, (T(5, 2, 16), T(6, 2, 16), T(6, 2, 16)), {}),
    ((16, 4), {"add_zero_attn": True, "add_bias_kv": True}, (T(5, 2, 16), T(6, 2, 16), T(6, 2, 16)), {}),
    ((16, 4), {"add_bias_kv": True}, (T(5, 2, 16), T(6, 2, 16), T(6, 2, 16)), {"attn_mask": B(5, 6)}),
    ((16, 4), {"kdim": 10}, (T(5, 2, 16), T(6, 2, 10), T(6, 2, 16)), {}),
    ((16, 0), {}, (T(5, 2, 16), T(6, 2, 16), T(6, 2, 16)), {}),
    ((16, 16), {}, (T(5, 2, 16), T(5, 2, 16), T(5, 2, 16)), {}),
    ((16, 4), {"bias": False}, (T(5, 2, 16), T(5, 2, 16), T(5, 2, 16)), {}),
]:
    add(Case(M + "MultiheadAttention", args, kw, ctor=ctor, ctor_kwargs=ckw))

for ckw, args, kw in [
    ({}, (T(5, 2, 16),), {}), ({}, (T(5, 16),), {}), ({}, (T(5, 2, 15),), {}), ({}, (T(16),), {}),
    ({"batch_first": True}, (T(2, 5, 16),), {"src_key_padding_mask": B(2, 5)}),
    ({"batch_first": True}, (T(2, 5, 16),), {"src_key_padding_mask": B(2, 6)}),
    ({}, (T(5, 2, 16),), {"src_mask": T(5, 5)}), ({}, (T(5, 2, 16),), {"src_mask": T(5, 6)}),
    ({"norm_first": True}, (T(5, 2, 16),), {}), ({"norm_first": True}, (T(5, 2, 12),), {}),
]:
    add(Case(M + "TransformerEncoderLayer", args, kw, ctor=(16, 4, 32), ctor_kwargs=ckw))
add(Case(M + "TransformerEncoderLayer", (T(5, 2, 16),), ctor=(16, 3)))
add(Case(M + "TransformerEncoderLayer", (T(5, 2, 16),), ctor=(16, 4)))
add(Case(M + "TransformerEncoderLayer", (T(5, 2, 16),), ctor=(16, 4), training=True))
for ckw, args, kw in [
    ({}, (T(5, 2, 16), T(7, 2, 16)), {}), ({}, (T(5, 2, 16), T(7, 3, 16)), {}), ({}, (T(5, 2, 16), T(7, 2, 15)), {}),
    ({}, (T(5, 16), T(7, 16)), {}), ({"batch_first": True}, (T(2, 5, 16), T(2, 7, 16)), {"tgt_mask": T(5, 5), "memory_mask": T(5, 7)}),
    ({"batch_first": True}, (T(2, 5, 16), T(2, 7, 16)), {"memory_mask": T(5, 5)}),
    ({}, (T(5, 2, 16), T(7, 2, 16)), {"tgt_key_padding_mask": B(2, 5), "memory_key_padding_mask": B(2, 7)}),
    ({}, (T(5, 2, 16), T(7, 2, 16)), {"memory_key_padding_mask": B(2, 5)}),
]:
    add(Case(M + "TransformerDecoderLayer", args, kw, ctor=(16, 4, 32), ctor_kwargs=ckw))
for ckw, args in [({}, (T(7, 2, 16), T(5, 2, 16))), ({}, (T(7, 2, 16), T(5, 3, 16))), ({}, (T(7, 2, 16), T(5, 2, 15))),
                  ({}, (T(7, 16), T(5, 16))), ({}, (T(7, 16), T(5, 2, 16))), ({"batch_first": True}, (T(2, 7, 16), T(2, 5, 16))),
                  ({"batch_first": True}, (T(2, 7, 16), T(3, 5, 16)))]:
    add(Case(M + "Transformer", args, ctor=(16, 4, 1, 1, 32), ctor_kwargs=ckw))

# The functional form (CLIP's attention pooling): sizes read off the weights it is given.
_SAME = lambda e, out=10: (T(3 * e, e), T(3 * e), None, None, False, 0.0, T(out, e), T(out))
for args, kw in [
    ((T(5, 2, 16), T(7, 2, 16), T(7, 2, 16), 16, 4) + _SAME(16), {}),
    ((T(5, 2, 16), T(7, 2, 16), T(7, 2, 16), 16, 4) + _SAME(16), {"need_weights": False}),
    ((T(5, 2, 16), T(7, 2, 16), T(7, 2, 16), 16, 4) + _SAME(16), {"average_attn_weights": False}),
    ((T(5, 16), T(7, 16), T(7, 16), 16, 4) + _SAME(16), {}),
    ((T(5, 2, 16), T(7, 2, 16), T(7, 2, 16), 16, 4) + _SAME(16, 24), {}),
    ((T(5, 2, 16), T(7, 2, 15), T(7, 2, 15), 16, 4) + _SAME(16), {}),
    ((T(5, 2, 16), T(7, 3, 16), T(7, 3, 16), 16, 4) + _SAME(16), {}),
    ((T(1, 2, 32), T(17, 2, 32), T(17, 2, 32), 32, 4, None, T(96), None, None, False, 0, T(24, 32), T(24)),
     {"use_separate_proj_weight": True, "q_proj_weight": T(32, 32), "k_proj_weight": T(32, 32),
      "v_proj_weight": T(32, 32), "need_weights": False}),
    ((T(1, 2, 32), T(17, 2, 12), T(17, 2, 20), 32, 4, None, T(96), None, None, False, 0, T(24, 32), T(24)),
     {"use_separate_proj_weight": True, "q_proj_weight": T(32, 32), "k_proj_weight": T(32, 12),
      "v_proj_weight": T(32, 20)}),
]:
    add(Case(F + "multi_head_attention_forward", args, kw))
