"""Differential cases: losses with reductions and the nn.*Loss modules.

Value convention: a float T with high=1 stands for values in [0, 1) (torch.rand), which
binary_cross_entropy (probabilities) and gaussian_nll_loss (var >= 0) need; other float
tensors are standard normal.
"""
from itertools import product

from tests.differential.case import Case, T

F = "torch.nn.functional."
M = "torch.nn."
CASES: list[Case] = []
add = CASES.append

def I(*s, high=3):
    return T(*s, dtype="int64", high=high)

for red in ("mean", "none", "sum"):
    for args, kw in [
        ((T(64, 10), I(32)), {}), ((T(4, 10), I(4)), {}), ((T(4, 10, 5, 6), I(4, 5, 6)), {}), ((T(4, 10, 5, 6), I(4, 5, 7)), {}),
        ((T(4, 10, 5, 6), I(4, 5)), {}), ((T(10), I()), {}), ((T(10), I(1)), {}), ((T(4, 10), T(4, 10)), {}), ((T(4, 10), T(4, 9)), {}),
        ((T(4, 10), T(4, 10)), {"label_smoothing": 0.1}), ((T(4, 10), I(4)), {"label_smoothing": 1.5}),
        ((T(4, 10), I(4)), {"weight": T(10)}), ((T(4, 10), I(4)), {"weight": T(9)}), ((T(4, 10), I(4, 1)), {}),
        ((T(4, 10), T(4)), {}), ((T(), I()), {}), ((T(4, 10, 5), I(4, 5)), {}), ((T(4, 10, 5), I(3, 5)), {}), ((T(0, 10), I(0)), {}),
        ((T(4, 10), I(4, dtype="int32") if False else T(4, dtype="int32")), {}), ((T(4, 10), I(4)), {"ignore_index": 1}),
        ((T(4, 10, 5), T(4, 10, 5)), {}), ((T(4, 10), I(4, 10)), {}), ((T(10), T(10)), {}), ((T(4, 10, 2, 2, 2), I(4, 2, 2, 2)), {}),
    ]:
        add(Case(F + "cross_entropy", args, dict(kw, reduction=red)))
    for args, kw in [
        ((T(4, 10), I(4)), {}), ((T(4, 10), I(5)), {}), ((T(4, 10, 3), I(4, 3)), {}), ((T(4, 10, 3), I(4, 2)), {}),
        ((T(10), I()), {}), ((T(4, 10), T(4, 10)), {}), ((T(4, 10), I(4)), {"weight": T(9)}),
        ((T(4, 10, 3, 3, 3), I(4, 3, 3, 3)), {}), ((T(4, 10, 3, 3), I(4, 3, 3)), {}), ((T(4, 10, 3, 3), I(4, 3)), {}),
        ((T(4, 10), T(4)), {}), ((T(4, 10), I(4, 1)), {}),
    ]:
        add(Case(F + "nll_loss", args, dict(kw, reduction=red)))
    for fn in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss", "kl_div", "poisson_nll_loss",
               "hinge_embedding_loss"):
        for a, b in [((4, 3), (4, 3)), ((4, 3), (4, 1)), ((4, 3), (5, 3)), ((4, 1), (4,)), ((), ()), ((2, 3), ()), ((0, 3), (1, 3))]:
            add(Case(F + fn, (T(*a), T(*b)), {"reduction": red}))
    for a, b, kw in [((4, 1), (4,), {}), ((4,), (4,), {}), ((4, 3), (4, 3), {"weight": T(3)}), ((4, 3), (4, 3), {"weight": T(4)}),
                     ((4, 3), (4, 3), {"weight": T(4, 1)}), ((4, 3), (4, 3), {"weight": T(2, 4, 3)}), ((), (), {})]:
        add(Case(F + "binary_cross_entropy", (T(*a, high=1), T(*b, high=1)), dict(kw, reduction=red)))
    for a, b, kw in [((4, 1), (4,), {}), ((4, 3), (4, 3), {}), ((4, 3), (4, 3), {"pos_weight": T(3)}),
                     ((4, 3), (4, 3), {"pos_weight": T(4)}), ((4, 3), (4, 3), {"weight": T(4, 1)}), ((4, 3), (4, 3), {"weight": T(4)}),
                     ((4, 1), (4, 3), {}), ((4, 3), (4, 3), {"weight": T(2, 4, 3)})]:
        add(Case(F + "binary_cross_entropy_with_logits", (T(*a), T(*b)), dict(kw, reduction=red)))
    for a, b, t in [((4, 3), (4, 3), (4,)), ((4, 3), (4, 3), (5,)), ((3,), (3,), ()), ((4, 3), (4, 2), (4,))]:
        add(Case(F + "cosine_embedding_loss", (T(*a), T(*b), T(*t)), {"reduction": red}))
    for a, b, t in [((4,), (4,), (4,)), ((4,), (4,), (1,)), ((4,), (5,), (4,)), ((4, 2), (4, 2), (4, 2)), ((4,), (4,), ())]:
        add(Case(F + "margin_ranking_loss", (T(*a), T(*b), T(*t)), {"reduction": red}))
    for a, b, c in [((4, 3), (4, 3), (4, 3)), ((4, 3), (4, 3), (4, 2)), ((3,), (3,), (3,)), ((4, 3), (3,), (4, 3)),
                    ((2, 4, 3), (2, 4, 3), (2, 4, 3)), ((4, 3), (1, 3), (4, 3))]:
        add(Case(F + "triplet_margin_loss", (T(*a), T(*b), T(*c)), {"reduction": red}))
    for a, b, v in [((4, 3), (4, 3), (4, 3)), ((4, 3), (4, 3), (4, 1)), ((4, 3), (4, 3), (4,)), ((4, 3), (4, 3), (4, 2))]:
        add(Case(F + "gaussian_nll_loss", (T(*a), T(*b), T(*v, high=1)), {"reduction": red}))
    add(Case(F + "multilabel_soft_margin_loss", (T(4, 3), T(4, 3)), {"reduction": red}))
    add(Case(F + "multi_margin_loss", (T(4, 3), I(4)), {"reduction": red}))
    add(Case(F + "multi_margin_loss", (T(4, 3), I(5)), {"reduction": red}))
    add(Case(F + "multilabel_margin_loss", (T(4, 3), I(4, 3)), {"reduction": red}))
    add(Case(F + "multilabel_margin_loss", (T(4, 3), I(4, 2)), {"reduction": red}))
for fn in ("mse_loss", "cross_entropy", "binary_cross_entropy"):
    add(Case(F + fn, (T(4, 3, high=1), T(4, 3, high=1)), {"reduction": "foo"}))
add(Case(F + "kl_div", (T(4, 3), T(4, 3)), {"reduction": "batchmean"}))
add(Case(F + "smooth_l1_loss", (T(4, 3), T(4, 3)), {"beta": -1.0}))
add(Case(F + "huber_loss", (T(4, 3), T(4, 3)), {"delta": -1.0}))
add(Case(F + "mse_loss", (T(4, 3), T(4, 3)), {"reduce": False}))

# modules
for api, ctor, args in [
    ("CrossEntropyLoss", (), (T(4, 10), I(4))), ("CrossEntropyLoss", (), (T(64, 10), I(32))),
    ("CrossEntropyLoss", (T(10),), (T(4, 10), I(4))), ("CrossEntropyLoss", (T(9),), (T(4, 10), I(4))),
    ("CrossEntropyLoss", (None, None, -100, None, "none"), (T(4, 10, 5), I(4, 5))),
    ("CrossEntropyLoss", (None, None, -100, None, "none", 0.1), (T(4, 10), T(4, 10))),
    ("NLLLoss", (), (T(4, 10), I(4))), ("NLLLoss", (None, None, -100, None, "none"), (T(4, 10), I(4))),
    ("NLLLoss", (), (T(4, 10), I(3))),
    ("MSELoss", (), (T(4, 3), T(4, 3))), ("MSELoss", (None, None, "none"), (T(4, 3), T(4, 1))), ("MSELoss", (), (T(4, 3), T(5, 3))),
    ("L1Loss", (None, None, "none"), (T(4, 3), T(3))), ("SmoothL1Loss", (None, None, "none", 0.5), (T(4, 3), T(4, 3))),
    ("HuberLoss", ("none", 2.0), (T(4, 3), T(4, 3))), ("SoftMarginLoss", (), (T(4, 3), T(4, 3))),
    ("KLDivLoss", (None, None, "batchmean"), (T(4, 3), T(4, 3))), ("KLDivLoss", (None, None, "none"), (T(4, 3), T(2, 4, 3))),
    ("BCELoss", (), (T(4, 1, high=1), T(4, high=1))), ("BCELoss", (None, None, None, "none"), (T(4, 3, high=1), T(4, 3, high=1))),
    ("BCELoss", (T(3),), (T(4, 3, high=1), T(4, 3, high=1))), ("BCEWithLogitsLoss", (), (T(4, 1), T(4))),
    ("BCEWithLogitsLoss", (None, None, None, "none", T(3)), (T(4, 3), T(4, 3))),
    ("BCEWithLogitsLoss", (None, None, None, "none", T(4)), (T(4, 3), T(4, 3))),
    ("HingeEmbeddingLoss", (1.0, None, None, "none"), (T(4, 3), T(4, 3))), ("PoissonNLLLoss", (), (T(4, 3), T(4, 3))),
    ("CosineEmbeddingLoss", (0.0, None, None, "none"), (T(4, 3), T(4, 3), T(4))),
    ("CosineEmbeddingLoss", (), (T(4, 3), T(4, 3), T(5))),
    ("MarginRankingLoss", (0.0, None, None, "none"), (T(4), T(4), T(4))),
    ("TripletMarginLoss", (1.0, 2.0, 1e-6, False, None, None, "none"), (T(4, 3), T(4, 3), T(4, 3))),
    ("TripletMarginLoss", (), (T(4, 3), T(4, 3), T(4, 2))),
    ("MultiLabelSoftMarginLoss", (None, None, None, "none"), (T(4, 3), T(4, 3))),
    ("MultiMarginLoss", (), (T(4, 3), I(4))), ("MultiLabelMarginLoss", (None, None, "none"), (T(4, 3), I(4, 3))),
]:
    add(Case(M + api, args, ctor=ctor))
add(Case(M + "GaussianNLLLoss", (T(4, 3), T(4, 3), T(4, 1, high=1)), ctor_kwargs={"reduction": "none"}))
add(Case(M + "GaussianNLLLoss", (T(4, 3), T(4, 3), T(4, 2, high=1))))
