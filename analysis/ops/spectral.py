"""Short-time Fourier transforms and their windows: torch.stft / istft (and the Tensor
methods), hann / hamming / blackman / bartlett / kaiser windows. Audio losses and front
ends (STFT losses, spectrogram encoders) compute their frames with these.
Checked against PyTorch 2.13 (CPU)."""
from __future__ import annotations

from .. import shapes as S
from .complex_fft import COMPLEX, COMPLEX_OF, REAL_OF
from .creation import _dtype
from .spec import DEFAULT_FLOAT, ILLEGAL_VALUE, SHAPE_MISMATCH, TensorValue, Unknowable, is_tensor, op

_T = S.dim_text


@op("torch.hann_window", "torch.hamming_window", "torch.blackman_window", "torch.bartlett_window",
    "torch.kaiser_window")
def window(ctx, window_length, periodic=True, *args, dtype=None, layout=None, device=None,
           requires_grad=False, **params):
    ctx.require(S.ge(window_length, 0), ILLEGAL_VALUE,
                lambda: f"window_length must be non-negative, got {_T(window_length)}")
    return TensorValue((window_length,), _dtype(dtype, DEFAULT_FLOAT))


def _tensor(x):
    if not is_tensor(x):
        raise Unknowable("not a tensor")
    return x


def _check_window(ctx, who, window, win, n_fft) -> None:
    """torch's checks of win_length and of the window tensor, alike in stft and istft."""
    ctx.require(S.and_(S.gt(win, 0), S.le(win, n_fft)), ILLEGAL_VALUE,
                lambda: f"{who}: expected 0 < win_length <= n_fft, but got win_length={_T(win)}")
    if is_tensor(window):
        w = ctx.shape(window)
        ok = S.eq(w[0], win) if len(w) == 1 else False
        ctx.require(ok, SHAPE_MISMATCH,
                    lambda: f"{who}: expected a 1D window tensor of size equal to win_length={_T(win)}, but got "
                            f"window with size [{', '.join(_T(d) for d in w)}]")


def _lengths(n_fft, hop_length, win_length):
    hop = hop_length if hop_length is not None else S.floordiv(n_fft, 4)
    win = win_length if win_length is not None else n_fft
    return hop, win


@op("torch.stft", "Tensor.stft")
def stft(ctx, input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    s = ctx.shape(_tensor(input))
    complex_in = input.dtype in COMPLEX or (is_tensor(window) and window.dtype in COMPLEX)
    if return_complex is None and not complex_in:
        if input.dtype is None:
            raise Unknowable("dtype not known")
        ctx.fail(ILLEGAL_VALUE, "stft requires the return_complex parameter be given for real inputs, and will "
                                "further require that return_complex=True in a future PyTorch release.")
    if len(s) not in (1, 2):
        ctx.fail(SHAPE_MISMATCH, "stft: expected a 1D or 2D tensor")
    hop, win = _lengths(n_fft, hop_length, win_length)
    length = s[-1]
    if center:
        if pad_mode != "reflect":
            raise Unknowable("another padding mode")  # (each has its own limit)
        pad = S.floordiv(n_fft, 2)
        ctx.require(S.lt(pad, length), SHAPE_MISMATCH,
                    lambda: f"Argument #4: Padding size should be less than the corresponding input dimension, "
                            f"but got: padding ({_T(pad)}, {_T(pad)}) at dimension {len(s)} of input "
                            f"[1, {', '.join(_T(d) for d in s)}]" if len(s) == 2 else
                            f"Argument #4: Padding size should be less than the corresponding input dimension, "
                            f"but got: padding ({_T(pad)}, {_T(pad)}) at dimension 2 of input [1, 1, {_T(s[0])}]")
        length = S.add(length, S.mul(2, pad))
    ctx.require(S.and_(S.gt(n_fft, 0), S.le(n_fft, length)), SHAPE_MISMATCH,
                lambda: f"stft: expected 0 < n_fft < {_T(length)}, but got n_fft={_T(n_fft)}")
    ctx.require(S.gt(hop, 0), ILLEGAL_VALUE, lambda: f"stft: expected hop_length > 0, but got hop_length={_T(hop)}")
    _check_window(ctx, "stft", window, win, n_fft)
    frames = S.add(1, S.floordiv(S.sub(length, n_fft), hop))
    if onesided is None:
        onesided = not complex_in
    freq = S.add(S.floordiv(n_fft, 2), 1) if onesided else n_fft
    out = tuple(s[:-1]) + (freq, frames)
    if complex_in:
        return TensorValue(out, input.dtype if input.dtype in COMPLEX else COMPLEX_OF.get(input.dtype))
    if return_complex:
        return TensorValue(out, COMPLEX_OF.get(input.dtype))
    return TensorValue(out + (2,), input.dtype)  # the legacy real form: (re, im) last


@op("torch.istft", "Tensor.istft")
def istft(ctx, input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    s = ctx.shape(_tensor(input))
    if input.dtype is not None and input.dtype not in COMPLEX:
        ctx.fail(ILLEGAL_VALUE, "istft requires a complex-valued input tensor")
    if len(s) not in (2, 3):
        ctx.fail(SHAPE_MISMATCH, f"istft: expected a tensor with 2 or 3 dimensions of complex values, "
                                 f"but got {len(s)}")
    if not center or return_complex:
        raise Unknowable("the window overlap condition depends on the window's values")
    hop, win = _lengths(n_fft, hop_length, win_length)
    freq, frames = s[-2], s[-1]
    one = onesided if onesided is not None else True
    want = S.add(S.floordiv(n_fft, 2), 1) if one else n_fft
    ctx.require(S.eq(freq, want), SHAPE_MISMATCH,
                lambda: "istft: expected the frequency dimension (3rd to the last) of the input tensor to match "
                        f"{'n_fft / 2 + 1' if one else 'n_fft'} when onesided={one}, but got {_T(freq)}")
    _check_window(ctx, "istft", window, win, n_fft)
    if length is None:
        length = S.sub(S.add(n_fft, S.mul(hop, S.sub(frames, 1))), S.mul(2, S.floordiv(n_fft, 2)))
    return TensorValue(tuple(s[:-2]) + (length,), REAL_OF.get(input.dtype))
