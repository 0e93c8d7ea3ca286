"""Differential cases: RNN/LSTM/GRU and their cells."""
from itertools import product

from tests.differential.case import Case, T

M = "torch.nn."
CASES: list[Case] = []
add = CASES.append

# Sweep: mode x layers x bidirectional x batch_first x input (batched/unbatched) x h0 given
for mode, L, bi, bf in product(("RNN", "LSTM", "GRU"), (1, 2), (False, True), (False, True)):
    D = 2 if bi else 1
    kw = {"num_layers": L, "bidirectional": bi, "batch_first": bf}
    xs = [T(4, 5, 8) if bf else T(5, 4, 8), T(5, 8), T(5, 4, 7)]
    for x in xs:
        add(Case(M + mode, (x,), ctor=(8, 6), ctor_kwargs=kw))
    h = T(L * D, 4, 6)
    hbad = T(L * D + 1, 4, 6)
    x = T(4, 5, 8) if bf else T(5, 4, 8)
    if mode == "LSTM":
        add(Case(M + mode, (x, (h, h)), ctor=(8, 6), ctor_kwargs=kw))
        add(Case(M + mode, (x, (hbad, h)), ctor=(8, 6), ctor_kwargs=kw))
        add(Case(M + mode, (x, (h, T(L * D, 4, 5))), ctor=(8, 6), ctor_kwargs=kw))
        add(Case(M + mode, (T(5, 8), (T(L * D, 6), T(L * D, 6))), ctor=(8, 6), ctor_kwargs=kw))
    else:
        add(Case(M + mode, (x, h), ctor=(8, 6), ctor_kwargs=kw))
        add(Case(M + mode, (x, hbad), ctor=(8, 6), ctor_kwargs=kw))
        add(Case(M + mode, (x, T(L * D, 3, 6)), ctor=(8, 6), ctor_kwargs=kw))
        add(Case(M + mode, (T(5, 8), T(L * D, 6)), ctor=(8, 6), ctor_kwargs=kw))

r = T
for api, ctor, kw, args in [
    ("LSTM", (32, 64), {}, (r(5, 4, 31),)), ("LSTM", (32, 64, 2), {}, (r(5, 4, 32), (r(1, 4, 64), r(2, 4, 64)))),
    ("LSTM", (32, 64, 2), {}, (r(5, 4, 32), (r(2, 4, 64), r(1, 4, 64)))),
    ("LSTM", (32, 64), {"proj_size": 16}, (r(5, 4, 32),)), ("LSTM", (32, 64), {"proj_size": 16}, (r(5, 4, 32), (r(1, 4, 64), r(1, 4, 64)))),
    ("LSTM", (32, 64), {"proj_size": 16}, (r(5, 4, 32), (r(1, 4, 16), r(1, 4, 64)))),
    ("LSTM", (32, 64), {"proj_size": 64}, (r(5, 4, 32),)), ("LSTM", (32, 64), {"proj_size": -1}, (r(5, 4, 32),)),
    ("LSTM", (32, 64), {"proj_size": 8, "num_layers": 2, "bidirectional": True}, (r(5, 4, 32),)),
    ("LSTM", (32, 64), {"proj_size": 8}, (r(5, 32),)),
    ("LSTM", (32, 64), {}, (r(5, 32), (r(1, 4, 64), r(1, 4, 64)))), ("LSTM", (32, 64), {}, (r(32),)),
    ("LSTM", (32, 64), {}, (r(2, 5, 4, 32),)), ("LSTM", (32, 64), {}, (r(5, 4, 32, dtype="float64"),)),
    ("GRU", (32, 64), {}, (r(5, 32), r(1, 1, 64))), ("RNN", (32, 64), {"nonlinearity": "relu"}, (r(5, 4, 32),)),
    ("RNN", (32, 64), {"nonlinearity": "foo"}, (r(5, 4, 32),)), ("RNN", (32, 64), {"num_layers": 0}, (r(5, 4, 32),)),
    ("RNN", (32, 0), {}, (r(5, 4, 32),)), ("RNN", (32, 64), {"dropout": 2}, (r(5, 4, 32),)),
    ("RNN", (32, 64), {}, (r(0, 4, 32),)), ("RNN", (32, 64), {}, (r(5, 0, 32),)), ("RNN", (32, 64), {"batch_first": True}, (r(5, 0, 32),)),
    ("RNN", (32, 64), {"batch_first": True}, (r(0, 5, 32),)), ("GRU", (32, 64), {"dropout": 0.5, "num_layers": 2}, (r(5, 4, 32),)),
    ("GRU", (32, 64), {"bias": False}, (r(5, 4, 32),)), ("RNN", (32, 64), {}, (r(5, 4, 32), r(4, 64))),
    ("LSTM", (32, 64), {}, (r(5, 4, 32), (r(1, 4, 64), r(1, 4, 64))),),
]:
    add(Case(M + api, args, ctor=ctor, ctor_kwargs=kw))
add(Case(M + "LSTM", (T(5, 4, 8),), ctor=(8, 6), training=True))

# Cells
for mode in ("RNNCell", "GRUCell", "LSTMCell"):
    lstm = mode == "LSTMCell"
    def hx(*s):
        return (T(*s), T(*s)) if lstm else T(*s)
    for args in [(T(4, 32),), (T(32),), (T(4, 31),), (T(4, 32), hx(4, 64)), (T(4, 32), hx(4, 63)), (T(4, 32), hx(3, 64)),
                 (T(32), hx(64)), (T(32), hx(1, 64)), (T(2, 4, 32),), (T(0, 32),), (T(4, 32), hx(64)), (T(4, 32), hx(2, 4, 64))]:
        add(Case(M + mode, args, ctor=(32, 64)))
    add(Case(M + mode, (T(4, 32),), ctor=(32, 64), ctor_kwargs={"bias": False}))
add(Case(M + "LSTMCell", (T(4, 32), (T(4, 64), T(4, 63))), ctor=(32, 64)))
add(Case(M + "RNNCell", (T(4, 32),), ctor=(32, 64), ctor_kwargs={"nonlinearity": "relu"}))
