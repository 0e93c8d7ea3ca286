"""Attention: scaled_dot_product_attention, nn.MultiheadAttention, Transformer layers.
Checked against PyTorch 2.13 (CPU)."""
from __future__ import annotations

from .. import shapes as S
from ..shapes import UNKNOWN
from .elementwise import broadcast_shapes
from .linalg import Linear
from .normalization import LayerNorm
from .spec import (DTYPE_MISMATCH, ILLEGAL_VALUE, SHAPE_MISMATCH, TensorValue, Unknowable, is_tensor,
                   module, op)

_TORCH_DT = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16"}


def _t(d):
    return S.dim_text(d)


def _sz(shape):
    return S.size_text(shape)


def _tsize(shape):
    return f"torch.Size({_sz(shape)})"


@op("torch.nn.functional.scaled_dot_product_attention")
def scaled_dot_product_attention(ctx, query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                 scale=None, enable_gqa=False):
    q, k, v = ctx.shape(query), ctx.shape(key), ctx.shape(value)
    if len(q) < 2 or len(k) < 2 or len(v) < 2:
        ctx.fail(SHAPE_MISMATCH, f"Expected query, key, and value to all be  at least 2 dimensional, but got "
                                 f"query.dim: {len(q)} key.dim: {len(k)} and value.dim: {len(v)} instead.")
    dts = [query.dtype, key.dtype, value.dtype]
    if all(dts) and len(set(dts)) > 1:
        ctx.fail(DTYPE_MISMATCH, "Expected query, key, and value to have the same dtype, but got query.dtype: "
                                 f"{_TORCH_DT.get(dts[0], dts[0])} key.dtype: {_TORCH_DT.get(dts[1], dts[1])} and "
                                 f"value.dtype: {_TORCH_DT.get(dts[2], dts[2])} instead.")
    if is_causal and attn_mask is not None:
        ctx.fail(ILLEGAL_VALUE, "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                                "is_causal=True")
    L, E = q[-2], q[-1]
    Sk, Ek = k[-2], k[-1]
    Sv, Ev = v[-2], v[-1]
    qb, kb, vb = tuple(q[:-2]), tuple(k[:-2]), tuple(v[:-2])
    if enable_gqa and len(q) >= 3 and len(k) >= 3 and len(v) >= 3:
        hq, hk, hv = q[-3], k[-3], v[-3]
        ctx.require(S.and_(S.eq(S.mod(hq, hk), 0), S.eq(S.mod(hq, hv), 0)), SHAPE_MISMATCH,
                    "Number of heads in key and value must divide the number of heads in query")
        kb = kb[:-1] + (hq,)
        vb = vb[:-1] + (hq,)
    # key/value batch dims broadcast with the query's
    kbatch = broadcast_shapes(ctx, qb, kb)
    ctx.require(S.eq(Ek, E), SHAPE_MISMATCH,
                f"Expected size for first two dimensions of batch2 tensor to be: [{_t(S.prod(kbatch))}, {_t(E)}] "
                f"but got: [{_t(S.prod(kbatch))}, {_t(Ek)}].")
    batch = broadcast_shapes(ctx, kbatch, vb)
    ctx.require(S.eq(Sv, Sk), SHAPE_MISMATCH,
                f"Expected size for first two dimensions of batch2 tensor to be: [{_t(S.prod(batch))}, {_t(Sk)}] "
                f"but got: [{_t(S.prod(batch))}, {_t(Sv)}].")
    if attn_mask is not None and is_tensor(attn_mask) and attn_mask.shape is not None:
        broadcast_shapes(ctx, tuple(batch) + (L, Sk), attn_mask.shape)
    return TensorValue(tuple(batch) + (L, Ev), query.dtype)


# ---------------------------------------------------------------------------------------
# MultiheadAttention
# ---------------------------------------------------------------------------------------

@module("torch.nn.MultiheadAttention")
def MultiheadAttention(ctx, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                       kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
    ctx.require(S.and_(S.gt(embed_dim, 0), S.gt(num_heads, 0)), ILLEGAL_VALUE,
                f"embed_dim and num_heads must be greater than 0, got embed_dim={_t(embed_dim)} and "
                f"num_heads={_t(num_heads)} instead")
    ctx.require(S.eq(S.mod(embed_dim, num_heads), 0), ILLEGAL_VALUE, "embed_dim must be divisible by num_heads")
    kdim = kdim if kdim is not None else embed_dim
    vdim = vdim if vdim is not None else embed_dim
    dt = str(dtype) if dtype is not None else "float32"
    same = kdim == embed_dim and vdim == embed_dim
    m = {"embed_dim": embed_dim, "num_heads": num_heads, "dropout": dropout, "kdim": kdim, "vdim": vdim,
         "batch_first": batch_first, "add_bias_kv": add_bias_kv, "add_zero_attn": add_zero_attn,
         "head_dim": S.floordiv(embed_dim, num_heads), "_qkv_same_embed_dim": same,
         "in_proj_weight": TensorValue((S.mul(3, embed_dim), embed_dim), dt) if same else None,
         "q_proj_weight": None if same else TensorValue((embed_dim, embed_dim), dt),
         "k_proj_weight": None if same else TensorValue((embed_dim, kdim), dt),
         "v_proj_weight": None if same else TensorValue((embed_dim, vdim), dt),
         "in_proj_bias": TensorValue((S.mul(3, embed_dim),), dt) if bias else None,
         "bias_k": TensorValue((1, 1, embed_dim), dt) if add_bias_kv else None,
         "bias_v": TensorValue((1, 1, embed_dim), dt) if add_bias_kv else None,
         "out_proj": {"in_features": embed_dim, "out_features": embed_dim,
                      "weight": TensorValue((embed_dim, embed_dim), dt),
                      "bias": TensorValue((embed_dim,), dt) if bias else None},
         "dtype": dt}
    return m


def mha_forward(ctx, m, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
    q, k, v = ctx.shape(query), ctx.shape(key), ctx.shape(value)
    if len(q) == 3:
        if len(k) != 3 or len(v) != 3:
            ctx.fail(SHAPE_MISMATCH, "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                     f"{len(k)}-D and {len(v)}-D tensors respectively")
        batched = True
    elif len(q) == 2:
        if len(k) != 2 or len(v) != 2:
            ctx.fail(SHAPE_MISMATCH, "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                     f"{len(k)}-D and {len(v)}-D tensors respectively")
        batched = False
    else:
        ctx.fail(SHAPE_MISMATCH, f"query should be unbatched 2D or batched 3D tensor but received {len(q)}-D query "
                                 "tensor")
    if batched and m["batch_first"]:
        q, k, v = (q[1], q[0], q[2]), (k[1], k[0], k[2]), (v[1], v[0], v[2])
    if not batched:
        q, k, v = (q[0], 1, q[1]), (k[0], 1, k[1]), (v[0], 1, v[1])
    L, N, E = q
    Sk, Nk, Ek = k
    Sv, Nv, Ev = v
    embed, heads = m["embed_dim"], m["num_heads"]
    ctx.require(S.eq(E, embed), SHAPE_MISMATCH,
                f"was expecting embedding dimension of {_t(embed)}, but got {_t(E)}", repair={"embed_dim": E})
    if m["_qkv_same_embed_dim"]:
        ctx.require(S.and_(S.eq(Sk, Sv), S.eq(Nk, Nv), S.eq(Ek, Ev)), SHAPE_MISMATCH,
                    f"key shape {_tsize(k)} does not match value shape {_tsize(v)}")
        ctx.require(S.eq(Ek, embed), SHAPE_MISMATCH,
                    f"mat1 and mat2 shapes cannot be multiplied ({S.mat_text(S.mul(Sk, Nk), Ek)} and "
                    f"{S.mat_text(embed, embed)})", repair={"kdim": Ek})
    else:
        ctx.require(S.and_(S.eq(Sk, Sv), S.eq(Nk, Nv)), SHAPE_MISMATCH,
                    f"key's sequence and batch dims {_tup(k[:2])} do not match value's {_tup(v[:2])}")
        ctx.require(S.eq(Ek, m["kdim"]), SHAPE_MISMATCH,
                    f"expecting key weights shape of ({_t(embed)}, {_t(Ek)}), but got torch.Size([{_t(embed)}, "
                    f"{_t(m['kdim'])}])", repair={"kdim": Ek})
        ctx.require(S.eq(Ev, m["vdim"]), SHAPE_MISMATCH,
                    f"expecting value weights shape of ({_t(embed)}, {_t(Ev)}), but got torch.Size([{_t(embed)}, "
                    f"{_t(m['vdim'])}])", repair={"vdim": Ev})
    ctx.require(S.eq(Nk, N), SHAPE_MISMATCH,
                f"shape '[{_t(Sk)}, {_t(S.mul(N, heads))}, {_t(m['head_dim'])}]' is invalid for input of size "
                f"{_t(S.prod((Sk, Nk, embed)))}")
    src = Sk
    if attn_mask is not None and is_tensor(attn_mask) and attn_mask.shape is not None:
        a = attn_mask.shape
        if len(a) == 2:
            ctx.require(S.and_(S.eq(a[0], L), S.eq(a[1], src)), SHAPE_MISMATCH,
                        f"The shape of the 2D attn_mask is {_tsize(a)}, but should be ({_t(L)}, {_t(src)}).")
        elif len(a) == 3:
            want = (S.mul(N, heads), L, src)
            ctx.require(S.and_(*[S.eq(x, y) for x, y in zip(a, want)]), SHAPE_MISMATCH,
                        f"The shape of the 3D attn_mask is {_tsize(a)}, but should be {_tup(want)}.")
        else:
            ctx.fail(SHAPE_MISMATCH, f"attn_mask's dimension {len(a)} is not supported")
    if m["add_bias_kv"]:
        src = S.add(src, 1)
    if key_padding_mask is not None and is_tensor(key_padding_mask) and key_padding_mask.shape is not None:
        kp = key_padding_mask.shape
        want = (N, Sk) if batched else (Sk,)
        if len(kp) != len(want):
            ctx.fail(SHAPE_MISMATCH, f"Expected key_padding_mask to be {len(want)}-D, got {len(kp)}-D")
        ctx.require(S.and_(*[S.eq(x, y) for x, y in zip(kp, want)]), SHAPE_MISMATCH,
                    f"Expected key_padded_mask.shape[{len(want) - 1}] to be {_t(want[-1])}, but got {_t(kp[-1])}")
    if m["add_zero_attn"]:
        src = S.add(src, 1)
    dt = query.dtype
    if batched:
        out = (N, L, embed) if m["batch_first"] else (L, N, embed)
    else:
        out = (L, embed)
    weights = None
    if need_weights:
        w = (N, L, src) if average_attn_weights else (N, heads, L, src)
        weights = TensorValue(w if batched else w[1:], dt)
    return TensorValue(out, dt), weights


def _tup(shape):
    return "(" + ", ".join(_t(d) for d in shape) + ")"


@MultiheadAttention.forward
def _mha_forward(ctx, m, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                 average_attn_weights=True, is_causal=False):
    return mha_forward(ctx, m, query, key, value, key_padding_mask, need_weights, attn_mask,
                       average_attn_weights, is_causal)


def _known_shape(t):
    return t.shape if is_tensor(t) and t.shape is not None else None


@op("torch.nn.functional.multi_head_attention_forward")
def multi_head_attention_forward(ctx, query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """The functional form of nn.MultiheadAttention (CLIP's attention pooling): the layer's
    rules with the sizes read off the weights it is given; the output's last dim is the
    output projection's."""
    if static_k is not None or static_v is not None:
        raise Unknowable("static keys or values")
    out_w = _known_shape(out_proj_weight)
    if out_w is None or len(out_w) != 2:
        raise Unknowable("the output projection's shape is not known")
    k_w, v_w = _known_shape(k_proj_weight), _known_shape(v_proj_weight)
    separate = bool(use_separate_proj_weight) and k_w is not None and v_w is not None
    if use_separate_proj_weight and not separate:
        raise Unknowable("the key or value projection's shape is not known")
    embed = embed_dim_to_check
    m = {"embed_dim": embed, "num_heads": num_heads, "batch_first": False,
         "add_bias_kv": bias_k is not None, "add_zero_attn": add_zero_attn is True,
         "head_dim": S.floordiv(embed, num_heads), "_qkv_same_embed_dim": not separate,
         "kdim": k_w[-1] if separate else embed, "vdim": v_w[-1] if separate else embed}
    out, weights = mha_forward(ctx, m, query, key, value, key_padding_mask, need_weights, attn_mask,
                               average_attn_weights, is_causal)
    ctx.require(S.eq(out_w[1], embed), SHAPE_MISMATCH,
                f"mat1 and mat2 shapes cannot be multiplied ({S.mat_text(S.prod(out.shape[:-1]), embed)} and "
                f"{S.mat_text(out_w[1], out_w[0])})")
    return TensorValue(tuple(out.shape[:-1]) + (out_w[0],), out.dtype), weights


# ---------------------------------------------------------------------------------------
# Transformer layers
# ---------------------------------------------------------------------------------------

def _linear(ctx, x, in_f, out_f):
    ctx.require(S.eq(x[-1], in_f), SHAPE_MISMATCH,
                f"mat1 and mat2 shapes cannot be multiplied ({S.mat_text(S.prod(x[:-1]), x[-1])} and "
                f"{S.mat_text(in_f, out_f)})")
    return tuple(x[:-1]) + (out_f,)


def _layer_ctor(ctx, d_model, nhead, dim_feedforward, dropout, batch_first, norm_first, bias, dtype, decoder,
                activation="relu", eps=1e-05):
    attn = MultiheadAttention.spec.fn(ctx, d_model, nhead, dropout, bias, batch_first=batch_first, dtype=dtype)
    m = {"d_model": d_model, "nhead": nhead, "dim_feedforward": dim_feedforward, "batch_first": batch_first,
         "norm_first": norm_first, "self_attn": attn,
         "linear1": Linear.spec.fn(ctx, d_model, dim_feedforward, bias, dtype=dtype),
         "linear2": Linear.spec.fn(ctx, dim_feedforward, d_model, bias, dtype=dtype),
         "norm1": LayerNorm.spec.fn(ctx, d_model, eps, True, bias, dtype=dtype),
         "norm2": LayerNorm.spec.fn(ctx, d_model, eps, True, bias, dtype=dtype),
         "decoder": decoder,
         "__module__": "torch.nn.TransformerDecoderLayer" if decoder else "torch.nn.TransformerEncoderLayer"}
    if decoder:
        m["multihead_attn"] = MultiheadAttention.spec.fn(ctx, d_model, nhead, dropout, bias,
                                                         batch_first=batch_first, dtype=dtype)
        m["norm3"] = LayerNorm.spec.fn(ctx, d_model, eps, True, bias, dtype=dtype)
    if isinstance(activation, dict):  # a module (nn.GELU()) is a submodule; a name is a function
        m["activation"] = activation
    return m


def _ff_block(ctx, m, x):
    h = _linear(ctx, x, m["d_model"], m["dim_feedforward"])
    _linear(ctx, h, m["dim_feedforward"], m["d_model"])


def _norm_check(ctx, m, x):
    ctx.require(S.eq(x[-1], m["d_model"]), SHAPE_MISMATCH,
                f"Given normalized_shape=[{_t(m['d_model'])}], expected input with shape [*, {_t(m['d_model'])}], "
                f"but got input of size{_sz(x)}")


def encoder_layer_forward(ctx, m, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
    x = ctx.shape(src)
    if m["norm_first"]:
        _norm_check(ctx, m, x)
    mha_forward(ctx, m["self_attn"], src, src, src, src_key_padding_mask, False, src_mask)
    _ff_block(ctx, m, x)
    return TensorValue(x, src.dtype)


def decoder_layer_forward(ctx, m, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                          memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
    x = ctx.shape(tgt)
    if m["norm_first"]:
        _norm_check(ctx, m, x)
    mha_forward(ctx, m["self_attn"], tgt, tgt, tgt, tgt_key_padding_mask, False, tgt_mask)
    mha_forward(ctx, m["multihead_attn"], tgt, memory, memory, memory_key_padding_mask, False, memory_mask)
    _ff_block(ctx, m, x)
    return TensorValue(x, tgt.dtype)


@module("torch.nn.TransformerEncoderLayer")
def TransformerEncoderLayer(ctx, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                            layer_norm_eps=1e-05, batch_first=False, norm_first=False, bias=True, device=None,
                            dtype=None):
    return _layer_ctor(ctx, d_model, nhead, dim_feedforward, dropout, batch_first, norm_first, bias, dtype, False,
                       activation, layer_norm_eps)


@TransformerEncoderLayer.forward
def _enc_layer_fwd(ctx, m, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
    return encoder_layer_forward(ctx, m, src, src_mask, src_key_padding_mask, is_causal)


@module("torch.nn.TransformerDecoderLayer")
def TransformerDecoderLayer(ctx, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                            layer_norm_eps=1e-05, batch_first=False, norm_first=False, bias=True, device=None,
                            dtype=None):
    return _layer_ctor(ctx, d_model, nhead, dim_feedforward, dropout, batch_first, norm_first, bias, dtype, True,
                       activation, layer_norm_eps)


@TransformerDecoderLayer.forward
def _dec_layer_fwd(ctx, m, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                   memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
    return decoder_layer_forward(ctx, m, tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                                 memory_key_padding_mask, tgt_is_causal, memory_is_causal)


def _layer_dict(layer):
    if not isinstance(layer, dict) or "self_attn" not in layer:
        raise Unknowable("the layer argument is not a known transformer layer")
    return layer


def _stack(layer, num_layers, norm):
    """TransformerEncoder / TransformerDecoder: `num_layers` copies of the layer (torch deep-copies
    it: the layer passed in is not one of them), then the norm."""
    return {"layer": layer, "num_layers": num_layers, "norm": norm,
            "layers": [layer] * num_layers if layer is not None and isinstance(num_layers, int) else None}


@module("torch.nn.TransformerEncoder")
def TransformerEncoder(ctx, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
    return _stack(encoder_layer if isinstance(encoder_layer, dict) else None, num_layers, norm)


@TransformerEncoder.forward
def _encoder_fwd(ctx, m, src, mask=None, src_key_padding_mask=None, is_causal=None):
    layer = _layer_dict(m["layer"])
    return encoder_layer_forward(ctx, layer, src, mask, src_key_padding_mask)


@module("torch.nn.TransformerDecoder")
def TransformerDecoder(ctx, decoder_layer, num_layers, norm=None):
    return _stack(decoder_layer if isinstance(decoder_layer, dict) else None, num_layers, norm)


@TransformerDecoder.forward
def _decoder_fwd(ctx, m, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                 memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
    layer = _layer_dict(m["layer"])
    return decoder_layer_forward(ctx, layer, tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                                 memory_key_padding_mask)


@module("torch.nn.Transformer")
def Transformer(ctx, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                dropout=0.1, activation="relu", custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-05,
                batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
    if custom_encoder is not None or custom_decoder is not None:
        raise Unknowable("custom encoder/decoder")
    enc = _layer_ctor(ctx, d_model, nhead, dim_feedforward, dropout, batch_first, norm_first, bias, dtype, False,
                      activation, layer_norm_eps)
    dec = _layer_ctor(ctx, d_model, nhead, dim_feedforward, dropout, batch_first, norm_first, bias, dtype, True,
                      activation, layer_norm_eps)
    return {"d_model": d_model, "nhead": nhead, "batch_first": batch_first,
            "encoder": _stack(enc, num_encoder_layers, _final_norm(ctx, d_model, layer_norm_eps, bias, dtype)),
            "decoder": _stack(dec, num_decoder_layers, _final_norm(ctx, d_model, layer_norm_eps, bias, dtype))}


def _final_norm(ctx, d_model, eps, bias, dtype):
    """The LayerNorm nn.Transformer puts after its encoder and its decoder."""
    return dict(LayerNorm.spec.fn(ctx, d_model, eps, True, bias, dtype=dtype), __module__="torch.nn.LayerNorm")


@Transformer.forward
def _transformer_fwd(ctx, m, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                     tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None,
                     tgt_is_causal=None, memory_is_causal=False):
    s, t = ctx.shape(src), ctx.shape(tgt)
    batched = len(s) == 3
    if batched:
        bs, bt = (s[0], t[0]) if m["batch_first"] else (s[1], t[1]) if len(t) == 3 else (s[1], UNKNOWN)
        if len(t) == 3:
            ctx.require(S.eq(bs, bt), SHAPE_MISMATCH, "the batch number of src and tgt must be equal")
    ctx.require(S.and_(S.eq(s[-1], m["d_model"]), S.eq(t[-1], m["d_model"])), SHAPE_MISMATCH,
                "the feature number of src and tgt must be equal to d_model")
    memory = encoder_layer_forward(ctx, m["encoder"]["layer"], src, src_mask, src_key_padding_mask)
    return decoder_layer_forward(ctx, m["decoder"]["layer"], tgt, memory, tgt_mask, memory_mask,
                                 tgt_key_padding_mask, memory_key_padding_mask)


# ---------------------------------------------------------------------------------------
# Submodules (the model summary lists them as torch has them: analysis.summary)
# ---------------------------------------------------------------------------------------
# The modules torch registers inside these layers, in registration order: (attribute, class
# name). Their spec dicts are the layer's attributes of those names (none: a module without
# parameters); a class of None is a module the user passed in (nn.GELU(), a norm), present
# when given, whose dict names its class ("__module__").
SUBMODULES = {
    "torch.nn.MultiheadAttention": (("out_proj", "NonDynamicallyQuantizableLinear"),),
    "torch.nn.TransformerEncoderLayer": (
        ("self_attn", "MultiheadAttention"), ("linear1", "Linear"), ("dropout", "Dropout"), ("linear2", "Linear"),
        ("norm1", "LayerNorm"), ("norm2", "LayerNorm"), ("dropout1", "Dropout"), ("dropout2", "Dropout"),
        ("activation", None)),
    "torch.nn.TransformerDecoderLayer": (
        ("self_attn", "MultiheadAttention"), ("multihead_attn", "MultiheadAttention"), ("linear1", "Linear"),
        ("dropout", "Dropout"), ("linear2", "Linear"), ("norm1", "LayerNorm"), ("norm2", "LayerNorm"),
        ("norm3", "LayerNorm"), ("dropout1", "Dropout"), ("dropout2", "Dropout"), ("dropout3", "Dropout"),
        ("activation", None)),
    "torch.nn.TransformerEncoder": (("layers", "ModuleList"), ("norm", None)),
    "torch.nn.TransformerDecoder": (("layers", "ModuleList"), ("norm", None)),
    "torch.nn.Transformer": (("encoder", "TransformerEncoder"), ("decoder", "TransformerDecoder")),
}

# The order forward calls them. Each call takes the previous call's output (its shape: the
# same, or a Linear's out_features last), or with an int, that positional input of the layer;
# "layers" calls each layer in turn; a submodule the layer does not have is skipped. A dict
# picks the order by an attribute of the layer (norm_first: pre-norm).
SUBMODULE_CALLS = {
    "torch.nn.TransformerEncoderLayer": ("norm_first", {
        False: ("self_attn", "dropout1", "norm1", "linear1", "activation", "dropout", "linear2", "dropout2", "norm2"),
        True: ("norm1", "self_attn", "dropout1", "norm2", "linear1", "activation", "dropout", "linear2",
               "dropout2")}),
    "torch.nn.TransformerDecoderLayer": ("norm_first", {
        False: ("self_attn", "dropout1", "norm1", "multihead_attn", "dropout2", "norm2", "linear1", "activation",
                "dropout", "linear2", "dropout3", "norm3"),
        True: ("norm1", "self_attn", "dropout1", "norm2", "multihead_attn", "dropout2", "norm3", "linear1",
               "activation", "dropout", "linear2", "dropout3")}),
    "torch.nn.TransformerEncoder": ("layers", "norm"),
    "torch.nn.TransformerDecoder": ("layers", "norm"),
    "torch.nn.Transformer": (("encoder", 0), ("decoder", 1)),
}
