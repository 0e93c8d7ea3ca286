"""Differential cases: embedding, dropout, flatten, pixel shuffle, interpolate, pad,
activation modules, distances, outer/cross, einsum."""
from itertools import product

from tests.differential.case import Case, T

F = "torch.nn.functional."
M = "torch.nn."
CASES: list[Case] = []
add = CASES.append

def I(*shape, high=3):
    return T(*shape, dtype="int64", high=high)

# Embedding
for idx in [I(2, 3), I(5), I(), I(2, 3, 4), I(0, 3), T(2, 3), T(2, 3, dtype="int32")]:
    add(Case(M + "Embedding", (idx,), ctor=(10, 4)))
    add(Case(F + "embedding", (idx, T(10, 4))))
for kw in [{"padding_idx": 10}, {"padding_idx": -11}, {"padding_idx": -10}, {"padding_idx": 9}, {"padding_idx": 0}]:
    add(Case(M + "Embedding", (I(2, 3),), ctor=(10, 4), ctor_kwargs=kw))
    add(Case(F + "embedding", (I(2, 3), T(10, 4)), kw))
add(Case(M + "Embedding", (I(2, 3),), ctor=(-1, 4)))
add(Case(M + "Embedding", (I(2, 3),), ctor=(10, 0)))
add(Case(F + "embedding", (I(2, 3), T(10))))
add(Case(F + "embedding", (I(2, 3), T(10, 4, 2))))
add(Case(F + "embedding_bag", (I(2, 3), T(10, 4))))
add(Case(F + "embedding_bag", (I(6), T(10, 4), I(3, high=1))))
add(Case(F + "embedding_bag", (I(6), T(10, 4), I(3, high=1)), {"include_last_offset": True}))
add(Case(M + "EmbeddingBag", (I(2, 3),), ctor=(10, 4)))
add(Case(M + "EmbeddingBag", (I(2, 3),), ctor=(10, 4), ctor_kwargs={"mode": "sum"}))

# Dropout family and Identity (eval and training)
for api, shapes in [("Dropout", [(2, 3), (), (2, 0, 4)]), ("Dropout1d", [(2, 3, 4), (3, 4), (4,), (2, 3, 4, 5)]),
                    ("Dropout2d", [(2, 3, 4, 5), (3, 4, 5)]), ("Dropout3d", [(2, 3, 4, 5, 6), (3, 4, 5, 6), (4, 5, 6)]),
                    ("AlphaDropout", [(2, 3)]), ("FeatureAlphaDropout", [(2, 3, 4)]), ("Identity", [(2, 3), ()])]:
    for shape, training in product(shapes, (False, True)):
        add(Case(M + api, (T(*shape),), training=training))
add(Case(M + "Dropout", (T(2, 3),), ctor=(1.5,)))
add(Case(M + "Dropout", (T(2, 3),), ctor=(-0.1,)))
add(Case(M + "Identity", (T(2, 3),), ctor=(5,), ctor_kwargs={"foo": 1}))

# Flatten / Unflatten
for shape, kw in product([(2, 3, 4), (2,), (), (2, 3, 4, 5), (0, 3)], [{}, {"start_dim": 0}, {"start_dim": 2, "end_dim": 1},
                                                                    {"start_dim": 3}, {"start_dim": -2, "end_dim": -1}, {"end_dim": 2}]):
    add(Case(M + "Flatten", (T(*shape),), ctor_kwargs=kw))
for shape, ctor in [((4, 6), (1, (2, 3))), ((4, 6), (1, (2, -1))), ((4, 6), (1, (4, 3))), ((4, 6), (-1, (2, 3))),
                    ((4, 6), (2, (2, 3))), ((4, 6), (1, [2, 3])), ((4, 6), (1, (-1, -1))), ((4, 0), (1, (0, -1))),
                    ((4, 6), (1, (4, -1))), ((4, 6), (0, (2, 2))), ((4, 6, 5), (1, (3, 2, 1))), ((4, 6), (1, (6,)))]:
    add(Case(M + "Unflatten", (T(*shape),), ctor=ctor))

# pixel shuffle
for shape, r in product([(2, 8, 3, 3), (2, 9, 3, 3), (8, 3, 3), (8, 3), (5, 2, 8, 3, 3), (2, 4, 3, 3), (0, 4, 1, 1)], (1, 2, 0)):
    add(Case(F + "pixel_shuffle", (T(*shape), r)))
    add(Case(M + "PixelShuffle", (T(*shape),), ctor=(r,)))
for shape, r in product([(2, 2, 4, 4), (2, 2, 5, 4), (2, 2, 4, 5), (2, 4), (3, 6, 6)], (1, 2, 3, 0)):
    add(Case(F + "pixel_unshuffle", (T(*shape), r)))
    add(Case(M + "PixelUnshuffle", (T(*shape),), ctor=(r,)))

# interpolate / Upsample
x = T(1, 2, 5, 7)
for kw in [{"size": (10, 3)}, {"size": 4}, {"size": (4,)}, {"size": (4, 4, 4)}, {"scale_factor": 1.5},
           {"scale_factor": (1.5, 0.3)}, {"scale_factor": (1.5,)}, {"scale_factor": 0.1}, {"size": (0, 3)}, {},
           {"size": 4, "scale_factor": 2}, {"size": 4, "mode": "linear"}, {"size": 4, "mode": "bilinear"},
           {"size": 4, "mode": "bicubic", "align_corners": True}, {"size": 4, "mode": "nearest", "align_corners": True},
           {"size": 4, "mode": "trilinear"}, {"size": 4, "mode": "area"}, {"size": 4, "mode": "nearest-exact"},
           {"size": 4, "mode": "foo"}, {"scale_factor": 2, "recompute_scale_factor": True},
           {"scale_factor": 1.7, "recompute_scale_factor": True}, {"scale_factor": -1.0}, {"size": (-1, 3)},
           {"scale_factor": 2, "mode": "bilinear", "antialias": True}, {"scale_factor": 2, "antialias": True},
           {"scale_factor": 2.0000001}, {"scale_factor": 2, "mode": "bilinear", "align_corners": False}]:
    add(Case(F + "interpolate", (x,), kw))
for shape, kw in [((2, 5), {"size": 4}), ((2, 3, 5), {"size": 4, "mode": "linear"}), ((2, 3, 5), {"scale_factor": 2.5, "mode": "linear"}),
                  ((2, 3, 5, 5, 5), {"scale_factor": 2, "mode": "trilinear"}), ((2, 3, 5, 5, 5, 5), {"scale_factor": 2}),
                  ((0, 2, 5, 7), {"scale_factor": 2}), ((1, 0, 5, 7), {"scale_factor": 2}), ((1, 2, 0, 7), {"scale_factor": 2}),
                  ((1, 2, 0, 7), {"size": (2, 2), "mode": "bilinear"}), ((1, 2, 7), {"scale_factor": 3 / 7}),
                  ((1, 2, 10), {"scale_factor": 0.3}), ((1, 2, 10), {"scale_factor": 0.7}), ((1, 2, 3), {"scale_factor": 1.1}),
                  ((1, 2, 3), {"scale_factor": 1.1, "mode": "linear"}), ((1, 2, 4, 4, 4), {"size": (2, 3, 4)}),
                  ((1, 2, 4, 4, 4), {"scale_factor": (0.5, 1, 2), "mode": "area"})]:
    add(Case(F + "interpolate", (T(*shape),), kw))
add(Case(F + "upsample", (x,), {"scale_factor": 2}))
add(Case(F + "upsample_nearest", (x,), {"scale_factor": 2}))
add(Case(F + "upsample_bilinear", (x,), {"scale_factor": 2}))
add(Case(F + "upsample_bilinear", (x,), {"size": (3, 3)}))
for ctor_kw, shape in [({"scale_factor": 2}, (1, 2, 5, 7)), ({"size": 3, "mode": "bilinear"}, (1, 2, 5, 7)),
                       ({"scale_factor": 2, "mode": "bilinear", "align_corners": True}, (1, 2, 5, 7)),
                       ({"scale_factor": 2, "mode": "linear"}, (1, 2, 5, 7)), ({"scale_factor": (2, 1)}, (1, 2, 5, 7)),
                       ({"size": (4, 5, 6), "mode": "trilinear"}, (1, 2, 3, 3, 3)), ({"scale_factor": 0.5}, (1, 2, 5))]:
    add(Case(M + "Upsample", (T(*shape),), ctor_kwargs=ctor_kw))
add(Case(M + "UpsamplingNearest2d", (x,), ctor_kwargs={"scale_factor": 2}))
add(Case(M + "UpsamplingBilinear2d", (x,), ctor_kwargs={"size": (3, 4)}))
add(Case(M + "UpsamplingBilinear2d", (T(2, 5, 5),), ctor_kwargs={"size": (3, 4)}))

# pad: constant with negative pads, and every mode around its limits
x4 = T(1, 2, 3, 4)
for p in [(1, 1), (1, 1, 2), (1, 1, 2, 2, 1, 1, 1, 1, 1, 1), (-2, -2), (-3, -2), (-4, 0), (-5, 2), (), (0, 0, 0, 0),
          (1, 2, 3, 4, 5, 6, 7, 8), (1, 1, -3, 0)]:
    add(Case(F + "pad", (x4, p)))
add(Case(F + "pad", (T(), ())))
add(Case(F + "pad", (T(), (1, 1))))
add(Case(F + "pad", (T(2, 3, 0), (1, 1))))
add(Case(F + "pad", (x4, (1, 1)), {"value": 2.0}))
for mode in ("reflect", "replicate", "circular"):
    for p in [(1, 1), (3, 3), (4, 0), (3, 0), (0, 4), (-1, -1), (-3, 0), (-4, 0), (5, 5), (-1, 2)]:
        add(Case(F + "pad", (T(2, 3, 4), p), {"mode": mode}))
    for shape, p in [((0, 3, 4), (1, 1)), ((2, 0, 4), (1, 1)), ((2, 3, 0), (1, 1)), ((2, 3, 0), (0, 0)), ((0, 4), (1, 1)),
                     ((2, 3, 4), (1, 1, 3, 3)), ((2, 3, 4), (4, 4, 2, 2)), ((1, 2, 3, 4, 5), (1, 1, 1, 1, 2, 2)),
                     ((1, 2, 3, 4, 5), (1, 1, 1, 1, 3, 2)), ((1, 2, 3, 4), (1, 1)), ((4,), (1, 1)), ((3, 4), (1, 1)),
                     ((3, 4), (1, 1, 1, 1)), ((1, 2, 3, 4, 5, 6), (1, 1)), ((2, 3, 4, 5), (1, 1, 1, 1)),
                     ((2, 2, 2, 2), (1, 1, 1, 1, 1, 1))]:
        add(Case(F + "pad", (T(*shape), p), {"mode": mode}))
add(Case(F + "pad", (x4, (1, 1)), {"mode": "foo"}))
add(Case(F + "pad", (T(2, 3, 4), (1, 1)), {"mode": "reflect", "value": 2.0}))
for api, ctor, shape in [("ZeroPad2d", (2,), (1, 2, 3, 4)), ("ZeroPad2d", ((1, 2, 3, 4),), (3, 4)), ("ZeroPad1d", (1,), (3, 4)),
                         ("ZeroPad3d", (1,), (2, 3, 4)), ("ZeroPad2d", ((-1, 0, 0, 0),), (3, 4)),
                         ("ReflectionPad2d", (2,), (3, 4)), ("ReflectionPad2d", (2,), (1, 3, 3)), ("ReflectionPad1d", (2,), (3, 4)),
                         ("ReflectionPad1d", (2,), (4,)), ("ReflectionPad1d", (4,), (2, 3, 4)), ("ReflectionPad3d", (1,), (1, 2, 3, 3, 3)),
                         ("ConstantPad1d", (2, 1.0), (4,)), ("ConstantPad3d", (1, 1.0), (4, 4)), ("ConstantPad2d", ((1, 0, 2, 0), 0.5), (2, 4, 4)),
                         ("CircularPad2d", (1,), (4, 4)), ("CircularPad2d", (1,), (1, 4, 4)), ("CircularPad1d", (3,), (1, 2, 3)),
                         ("CircularPad1d", (4,), (1, 2, 3)), ("CircularPad3d", (1,), (1, 1, 2, 2, 2)),
                         ("ReplicationPad3d", (1,), (2, 4, 4, 4)), ("ReplicationPad3d", (1,), (4, 4, 4)),
                         ("ReplicationPad2d", ((1, 2, 3, 4),), (1, 1, 2, 2)), ("ReplicationPad1d", (5,), (1, 2, 1))]:
    add(Case(M + api, (T(*shape),), ctor=ctor))

# activation modules (each calls the functional spec)
for api, ctor in [("ReLU", ()), ("ReLU6", ()), ("GELU", ()), ("GELU", ("tanh",)), ("SiLU", ()), ("Mish", ()), ("ELU", (0.5,)),
                  ("SELU", ()), ("CELU", ()), ("LeakyReLU", (0.2,)), ("Hardtanh", (-2.0, 2.0)), ("Hardsigmoid", ()),
                  ("Hardswish", ()), ("Sigmoid", ()), ("Tanh", ()), ("Softplus", ()), ("Softsign", ()), ("Tanhshrink", ()),
                  ("LogSigmoid", ()), ("Threshold", (0.1, 20.0)), ("Softshrink", ()), ("Hardshrink", ()), ("RReLU", ())]:
    for shape in [(2, 3), (), (2, 0, 4)]:
        add(Case(M + api, (T(*shape),), ctor=ctor))
for api in ("Softmax", "LogSoftmax", "Softmin"):
    for shape, dim in [((2, 3), 1), ((2, 3), -1), ((2, 3), 2), ((2, 3), None), ((2, 3, 4), None), ((), None), ((3,), 0), ((2, 3), -3)]:
        add(Case(M + api, (T(*shape),), ctor=(dim,)))
for shape in [(2, 3), (2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4, 5)]:
    add(Case(M + "Softmax2d", (T(*shape),)))
for shape, dim in [((2, 4), -1), ((2, 3), -1), ((2, 4), 0), ((4, 6), 1), ((4,), 0), ((2, 4), 2)]:
    add(Case(M + "GLU", (T(*shape),), ctor=(dim,)))
for args in [(T(2, 3, 4), T(3)), (T(2, 3, 4), T(4)), (T(2, 3, 4), T(1)), (T(3), T(3)), (T(3), T(1)), (T(), T(1)),
             (T(), T(2)), (T(2, 3), T(3, 1)), (T(2, 3), T()), (T(0, 3), T(3))]:
    add(Case(F + "prelu", args))
for ctor, shape in [((), (2, 4)), ((3,), (2, 4)), ((4,), (2, 4)), ((4,), (2, 4, 5)), ((4,), (4,)), ((1,), ())]:
    add(Case(M + "PReLU", (T(*shape),), ctor=ctor))

# distances, outer, cross
for a, b, kw in [((2, 3), (2, 3), {}), ((2, 3), (1, 3), {"dim": 0}), ((2, 3), (4, 3), {}), ((3,), (3,), {"dim": 0}),
                 ((3,), (3,), {"dim": 1}), ((2, 3), (3,), {"dim": 1}), ((), (), {"dim": 0}), ((2, 3, 4), (3, 1), {"dim": -1}),
                 ((2, 3, 4), (2, 3, 4), {"dim": 3})]:
    add(Case(F + "cosine_similarity", (T(*a), T(*b)), kw))
    add(Case(M + "CosineSimilarity", (T(*a), T(*b)), ctor_kwargs=kw))
for a, b, kw in [((2, 3), (2, 3), {}), ((2, 3), (2, 3), {"keepdim": True}), ((3,), (3,), {}), ((3,), (3,), {"keepdim": True}),
                 ((2, 3), (3,), {}), ((2, 3), (4, 3), {}), ((), (), {}), ((2, 3, 4), (2, 3, 4), {}), ((2, 3, 4), (1, 4), {}),
                 ((2, 3), (2, 1), {"keepdim": True})]:
    add(Case(F + "pairwise_distance", (T(*a), T(*b)), kw))
    add(Case(M + "PairwiseDistance", (T(*a), T(*b)), ctor_kwargs=kw))
for a, b in [((2, 5, 3), (2, 4, 3)), ((5, 3), (4, 3)), ((5, 3), (4, 2)), ((3,), (3,)), ((2, 5, 3), (4, 3)),
             ((2, 5, 3), (3, 4, 3)), ((2, 1, 5, 3), (3, 4, 3)), ((0, 3), (4, 3)), ((5, 3), (4,))]:
    add(Case("torch.cdist", (T(*a), T(*b))))
for a, b in [((3,), (4,)), ((3, 1), (4,)), ((), (4,)), ((3,), (4, 1)), ((0,), (2,))]:
    add(Case("torch.outer", (T(*a), T(*b))))
    add(Case("torch.ger", (T(*a), T(*b))))
for a, b, kw in [((2, 3), (2, 3), {"dim": 1}), ((2, 3), (2, 3), {}), ((3, 2), (3, 2), {}), ((3, 2), (3, 2), {"dim": 1}),
                 ((2, 3), (1, 3), {"dim": 1}), ((2, 3), (3,), {"dim": -1}), ((4, 3), (4, 3), {"dim": -1}), ((2, 2), (2, 2), {"dim": 0})]:
    add(Case("torch.cross", (T(*a), T(*b)), kw))
for a, b in [((2, 3), (3,)), ((3, 2), (3, 2)), ((4, 3), (4, 3)), ((4, 3), (1, 3))]:
    add(Case("torch.linalg.cross", (T(*a), T(*b))))

# einsum
for eq, shapes in [("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk->ik", [(2, 3), (4, 5)]), ("ij,jk", [(2, 3), (3, 4)]),
                   ("ij,kj", [(2, 3), (4, 3)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("ii->i", [(3, 4)]),
                   ("...ij,...jk->...ik", [(5, 2, 3), (3, 4)]), ("...ij,...jk->...ik", [(5, 2, 3), (6, 3, 4)]),
                   ("...ij,...jk", [(5, 2, 3), (1, 3, 4)]), ("bij,bjk->bik", [(5, 2, 3), (1, 3, 4)]), ("i,i->", [(3,), (1,)]),
                   ("ij->ji", [(2, 3, 4)]), ("ij->ij", [(2,)]), ("ij->k", [(2, 3)]), ("ij->ii", [(2, 3)]),
                   ("ij,ij->ij", [(2, 3)]), ("ij", [(2, 3), (2, 3)]), ("i...->...", [(2, 3, 4)]), ("...", [(2, 3, 4)]),
                   ("...->", [(2, 3, 4)]), ("ij...k->k...", [(2, 3, 4, 5, 6)]), ("a...,...b->a...b", [(2, 3), (4, 5)]),
                   ("a...,...b->a...b", [(2, 3), (3, 5)]), ("a...,...b->a...b", [(2, 1), (4, 5)]), ("Ab,bc->Ac", [(2, 3), (3, 4)]),
                   ("i j,j k->i k", [(2, 3), (3, 4)]), ("i,j->ij", [(3,), (4,)]), ("bhqd,bhkd->bhqk", [(2, 4, 5, 8), (2, 4, 6, 8)]),
                   ("bhqd,bhkd->bhqk", [(2, 4, 5, 8), (2, 1, 6, 8)]), ("ij->j", [(0, 3)]), ("..i,i", [(2, 3), (3,)]),
                   ("ij->i->j", [(2, 3)]), ("i->", [()]), ("->", [()]), ("ij,jk->ikk", [(2, 3), (3, 4)]), ("ii->i", [(1, 3)]),
                   ("i,i", [(2,), (3,)]), ("bA,Ab", [(2, 3), (3, 2)]), ("ba,ab", [(2, 3), (3, 2)]), ("zb,ya", [(2, 3), (4, 5)]),
                   ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]), ("...ii->...i", [(2, 3, 3)]), ("i...i", [(3, 2, 3)]),
                   ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (5, 5)]),
                   ("b...,b...->b...", [(2, 3, 4), (2, 1, 4)]), ("b...,b...->b", [(2, 3, 4), (2, 4)])]:
    add(Case("torch.einsum", (eq,) + tuple(T(*s) for s in shapes)))
add(Case("torch.einsum", ("ij,jk->ik", [T(2, 3), T(3, 4)])))
