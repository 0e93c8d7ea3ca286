"""Recurrent layers: nn.RNN/LSTM/GRU (batch_first, bidirectional, num_layers, proj_size,
h0/c0, unbatched input) and nn.RNNCell/LSTMCell/GRUCell. Checked against PyTorch 2.13.

Forward results are nested tuples: (output, h_n) for RNN/GRU, (output, (h_n, c_n)) for LSTM.
"""
from __future__ import annotations

from .. import shapes as S
from ..shapes import UNKNOWN
from .spec import (DTYPE_MISMATCH, ILLEGAL_SHAPE, ILLEGAL_VALUE, SHAPE_MISMATCH, TensorValue,
                   Unknowable, is_tensor, module)

_GATES = {"RNN": 1, "LSTM": 4, "GRU": 3}


def _t(d):
    return S.dim_text(d)


def _sz(shape):
    return S.size_text(shape)


def _tup(shape):
    return "(" + ", ".join(_t(d) for d in shape) + ")"


def _rnn_ctor(ctx, mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
              proj_size, dtype, nonlinearity="tanh"):
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1:
        if dropout is not UNKNOWN:
            ctx.fail(ILLEGAL_VALUE, "dropout should be a number in range [0, 1] representing the probability of "
                                    "an element being zeroed")
    ctx.require(S.gt(hidden_size, 0), ILLEGAL_VALUE, "hidden_size must be greater than zero")
    ctx.require(S.gt(num_layers, 0), ILLEGAL_VALUE, "num_layers must be greater than zero")
    ctx.require(S.ge(proj_size, 0), ILLEGAL_VALUE,
                "proj_size should be a positive integer or zero to disable projections")
    ctx.require(S.lt(proj_size, hidden_size), ILLEGAL_VALUE, "proj_size has to be smaller than hidden_size")
    if mode == "RNN" and nonlinearity not in ("tanh", "relu"):
        ctx.fail(ILLEGAL_VALUE, f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
    dt = str(dtype) if dtype is not None else "float32"
    directions = 2 if bidirectional else 1
    real_hidden = proj_size if isinstance(proj_size, int) and proj_size > 0 else hidden_size
    gate = S.mul(_GATES[mode], hidden_size)
    m = {"mode": mode, "input_size": input_size, "hidden_size": hidden_size, "num_layers": num_layers,
         "bias": bias, "batch_first": batch_first, "dropout": dropout, "bidirectional": bidirectional,
         "proj_size": proj_size, "nonlinearity": nonlinearity, "dtype": dt, "training": True}
    layers = num_layers if isinstance(num_layers, int) else 1
    for layer in range(layers):
        layer_in = input_size if layer == 0 else S.mul(real_hidden, directions)
        for suffix in ("", "_reverse")[:directions]:
            m[f"weight_ih_l{layer}{suffix}"] = TensorValue((gate, layer_in), dt)
            m[f"weight_hh_l{layer}{suffix}"] = TensorValue((gate, real_hidden), dt)
            if bias:
                m[f"bias_ih_l{layer}{suffix}"] = TensorValue((gate,), dt)
                m[f"bias_hh_l{layer}{suffix}"] = TensorValue((gate,), dt)
            if real_hidden is not hidden_size:
                m[f"weight_hr_l{layer}{suffix}"] = TensorValue((proj_size, hidden_size), dt)
    return m


def _rnn_forward(ctx, m, input, hx):
    from .packed import PackedSeq
    if isinstance(input, PackedSeq):
        # A pack is time first whatever batch_first says; the output is a pack again.
        output, hidden = _rnn_forward(ctx, dict(m, batch_first=False), TensorValue(input.padded, input.dtype), hx)
        return PackedSeq(output.shape, output.dtype, input.total), hidden
    mode = m["mode"]
    x = ctx.shape(input)
    if len(x) not in (2, 3):
        ctx.fail(SHAPE_MISMATCH, f"{mode}: Expected input to be 2D or 3D, got {len(x)}D instead")
    if input.dtype and m["dtype"] and input.dtype != m["dtype"]:
        ctx.fail(DTYPE_MISMATCH, f"RNN input dtype (torch.{input.dtype}) does not match weight dtype "
                                 f"(torch.{m['dtype']}). Convert input: input.to(torch.{m['dtype']}), or convert "
                                 f"model: model.to(torch.{input.dtype})")
    batched = len(x) == 3
    hiddens = None
    if hx is not None:
        if mode == "LSTM":
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                if is_tensor(hx):
                    ctx.fail(SHAPE_MISMATCH, "LSTM expects hx to be a tuple (h_0, c_0)")
                raise Unknowable("LSTM hx")
            hiddens = [ctx.shape(h) for h in hx]
        else:
            hiddens = [ctx.shape(hx)]
        want = 3 if batched else 2
        if any(len(h) != want for h in hiddens):
            if batched:
                ctx.fail(SHAPE_MISMATCH, f"For batched 3-D input, hx{' and cx' if mode == 'LSTM' else ''} should "
                                         f"also be 3-D but got ({', '.join(f'{len(h)}-D' for h in hiddens)}) tensor"
                                         f"{'s' if mode == 'LSTM' else ''}")
            if mode == "LSTM":
                ctx.fail(SHAPE_MISMATCH, "For unbatched 2-D input, hx and cx should also be 2-D but got "
                                         f"({', '.join(f'{len(h)}-D' for h in hiddens)}) tensors")
            ctx.fail(SHAPE_MISMATCH, f"For unbatched 2-D input, hx should also be 2-D but got {len(hiddens[0])}-D "
                                     "tensor")
        if not batched:
            hiddens = [(h[0], 1, h[1]) for h in hiddens]
    xb = x if batched else ((x[0], 1, x[1]) if not m["batch_first"] else (1, x[0], x[1]))
    if m["batch_first"]:
        batch, seq = xb[0], xb[1]
    else:
        seq, batch = xb[0], xb[1]
    ctx.require(S.gt(seq, 0), ILLEGAL_SHAPE, "Expected sequence length to be larger than 0 in RNN")
    ctx.require(S.eq(x[-1], m["input_size"]), SHAPE_MISMATCH,
                f"input.size(-1) must be equal to input_size. Expected {_t(m['input_size'])}, got {_t(x[-1])}",
                repair={"input_size": x[-1]})
    directions = 2 if m["bidirectional"] else 1
    proj = m["proj_size"]
    hidden = m["hidden_size"]
    real_hidden = proj if isinstance(proj, int) and proj > 0 else hidden
    layers_dirs = S.mul(m["num_layers"], directions)
    h_shape = (layers_dirs, batch, real_hidden)
    c_shape = (layers_dirs, batch, hidden)
    if hiddens is not None:
        expected = [h_shape, c_shape] if mode == "LSTM" else [h_shape]
        for i, (got, exp) in enumerate(zip(hiddens, expected)):
            label = f"hidden[{i}] size" if mode == "LSTM" else "hidden size"
            ctx.require(S.and_(*[S.eq(a, b) for a, b in zip(got, exp)]), SHAPE_MISMATCH,
                        f"Expected {label} {_tup(exp)}, got {_sz(got)}")
    feat = S.mul(directions, real_hidden)
    if batched:
        out = (batch, seq, feat) if m["batch_first"] else (seq, batch, feat)
        h_out, c_out = h_shape, c_shape
    else:
        out = (seq, feat)
        h_out, c_out = (layers_dirs, real_hidden), (layers_dirs, hidden)
    dt = input.dtype
    output = TensorValue(out, dt)
    if mode == "LSTM":
        return output, (TensorValue(h_out, dt), TensorValue(c_out, dt))
    return output, TensorValue(h_out, dt)


@module("torch.nn.RNN")
def RNN(ctx, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True, batch_first=False,
        dropout=0.0, bidirectional=False, device=None, dtype=None):
    return _rnn_ctor(ctx, "RNN", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                     0, dtype, nonlinearity)


@RNN.forward
def _rnn_fwd(ctx, m, input, hx=None):
    return _rnn_forward(ctx, m, input, hx)


@module("torch.nn.LSTM")
def LSTM(ctx, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
         bidirectional=False, proj_size=0, device=None, dtype=None):
    return _rnn_ctor(ctx, "LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                     proj_size, dtype)


@LSTM.forward
def _lstm_fwd(ctx, m, input, hx=None):
    return _rnn_forward(ctx, m, input, hx)


@module("torch.nn.GRU")
def GRU(ctx, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
        bidirectional=False, device=None, dtype=None):
    return _rnn_ctor(ctx, "GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                     0, dtype)


@GRU.forward
def _gru_fwd(ctx, m, input, hx=None):
    return _rnn_forward(ctx, m, input, hx)


# ---------------------------------------------------------------------------------------
# Cells
# ---------------------------------------------------------------------------------------

def _cell_ctor(ctx, mode, input_size, hidden_size, bias, dtype, nonlinearity="tanh"):
    dt = str(dtype) if dtype is not None else "float32"
    gate = S.mul(_GATES[mode], hidden_size)
    for d in (gate, input_size):
        ctx.require(S.ge(d, 0), ILLEGAL_VALUE,
                    f"Trying to create tensor with negative dimension {_t(d)}: [{_t(gate)}, {_t(input_size)}]")
    return {"mode": mode, "input_size": input_size, "hidden_size": hidden_size, "bias": bias,
            "nonlinearity": nonlinearity,
            "weight_ih": TensorValue((gate, input_size), dt), "weight_hh": TensorValue((gate, hidden_size), dt),
            "bias_ih": TensorValue((gate,), dt) if bias else None,
            "bias_hh": TensorValue((gate,), dt) if bias else None}


def _cell_forward(ctx, m, input, hx):
    mode = m["mode"]
    name = {"RNN": "RNNCell", "LSTM": "LSTMCell", "GRU": "GRUCell"}[mode]
    x = ctx.shape(input)
    if len(x) not in (1, 2):
        ctx.fail(SHAPE_MISMATCH, f"{name}: Expected input to be 1D or 2D, got {len(x)}D instead")
    hiddens = None
    if hx is not None:
        if mode == "LSTM":
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise Unknowable("LSTMCell hx")
            hiddens = [ctx.shape(h) for h in hx]
        else:
            hiddens = [ctx.shape(hx)]
        for i, h in enumerate(hiddens):
            if len(h) not in (1, 2):
                ctx.fail(SHAPE_MISMATCH, f"{name}: Expected hx[{i}] to be 1D or 2D, got {len(h)}D instead"
                         if mode == "LSTM" else f"{name}: Expected hidden to be 1D or 2D, got {len(h)}D instead")
    batched = len(x) == 2
    xb = x if batched else (1,) + x
    if hiddens is not None:
        hb = []
        for i, h in enumerate(hiddens):
            if not batched:
                if len(h) != 1:
                    ctx.fail(SHAPE_MISMATCH, f"hidden{i} has inconsistent hidden_size: got {_t(h[0])}, expected "
                                             f"{_t(m['hidden_size'])}")
                h = (1,) + h
            elif len(h) != 2:
                ctx.fail(SHAPE_MISMATCH, f"Expected hidden{i} to be 2-D, got {len(h)}-D")
            hb.append(h)
        hiddens = hb
    ctx.require(S.eq(xb[1], m["input_size"]), SHAPE_MISMATCH,
                f"input has inconsistent input_size: got {_t(xb[1])} expected {_t(m['input_size'])}",
                repair={"input_size": xb[1]})
    if hiddens is not None:
        for i, h in enumerate(hiddens):
            ctx.require(S.eq(xb[0], h[0]), SHAPE_MISMATCH,
                        f"Input batch size {_t(xb[0])} doesn't match hidden{i} batch size {_t(h[0])}")
            ctx.require(S.eq(h[1], m["hidden_size"]), SHAPE_MISMATCH,
                        f"hidden{i} has inconsistent hidden_size: got {_t(h[1])}, expected {_t(m['hidden_size'])}")
    out = (xb[0], m["hidden_size"]) if batched else (m["hidden_size"],)
    dt = input.dtype
    if mode == "LSTM":
        return TensorValue(out, dt), TensorValue(out, dt)
    return TensorValue(out, dt)


@module("torch.nn.RNNCell")
def RNNCell(ctx, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
    return _cell_ctor(ctx, "RNN", input_size, hidden_size, bias, dtype, nonlinearity)


@RNNCell.forward
def _rnncell_fwd(ctx, m, input, hx=None):
    return _cell_forward(ctx, m, input, hx)


@module("torch.nn.LSTMCell")
def LSTMCell(ctx, input_size, hidden_size, bias=True, device=None, dtype=None):
    return _cell_ctor(ctx, "LSTM", input_size, hidden_size, bias, dtype)


@LSTMCell.forward
def _lstmcell_fwd(ctx, m, input, hx=None):
    return _cell_forward(ctx, m, input, hx)


@module("torch.nn.GRUCell")
def GRUCell(ctx, input_size, hidden_size, bias=True, device=None, dtype=None):
    return _cell_ctor(ctx, "GRU", input_size, hidden_size, bias, dtype)


@GRUCell.forward
def _grucell_fwd(ctx, m, input, hx=None):
    return _cell_forward(ctx, m, input, hx)
