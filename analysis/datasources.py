"""Where training batches come from: datasets, transforms and DataLoader, modelled by name.

A training script feeds a model with `for images, labels in loader:`; knowing the batch
makes the model's `forward` concrete. Modelled (PyTea does the same):

- `torchvision.datasets.MNIST / FashionMNIST / KMNIST / CIFAR10 / CIFAR100 / ImageFolder`
  with `transform=transforms.Compose([...])` of `ToTensor`, `Resize`, `CenterCrop`,
  `RandomCrop`, `Normalize`, `Grayscale` and shape-keeping augmentations;
- `torch.utils.data.TensorDataset`, `random_split`, `Subset`, and `DataLoader` with
  `batch_size` and `drop_last`.

Iterating a loader yields the full batch, and the last, smaller batch as a second item when
the dataset's length leaves one (so a hover says both, as the runtime sees both). A dataset of
unknown length gives a last batch of symbolic size.
"""
from __future__ import annotations

from . import shapes as S
from .ops.spec import TensorValue
from .shapes import UNKNOWN
from .values import DictVal, ListVal, Obj

# name -> (height, width, channels, train length, test length)
_IMAGE_DATASETS = {
    "MNIST": (28, 28, 1, 60000, 10000), "FashionMNIST": (28, 28, 1, 60000, 10000),
    "KMNIST": (28, 28, 1, 60000, 10000), "CIFAR10": (32, 32, 3, 50000, 10000),
    "CIFAR100": (32, 32, 3, 50000, 10000), "ImageFolder": (UNKNOWN, UNKNOWN, 3, None, None),
}
_KEEP = {"Normalize", "RandomHorizontalFlip", "RandomVerticalFlip", "RandomRotation",
         "ColorJitter", "RandomErasing", "RandomApply", "ConvertImageDtype", "RandomGrayscale",
         "AutoAugment", "RandAugment", "TrivialAugmentWide", "GaussianBlur", "RandomAffine",
         "RandomInvert", "RandomPosterize", "RandomSolarize", "RandomAutocontrast"}
DATA_PREFIXES = ("torchvision.datasets", "torchvision.transforms")


class Image:
    """A PIL image in a dataset's pipeline, before ToTensor (size may be UNKNOWN)."""

    def __init__(self, h, w, c):
        self.h, self.w, self.c = h, w, c


class Transform(Obj):
    """A transform pipeline: a function from an item to an item (None: unknown)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def structural_key(self, key):
        return ("transform", id(self.fn))


class Dataset(Obj):
    """Items of known shape: `item` (a value, a tuple ListVal for (input, label)) and the
    number of items (None when unknown)."""

    def __init__(self, item, length):
        super().__init__()
        self.item, self.length = item, length

    def structural_key(self, key):
        return ("dataset", key(self.item), self.length)


class Loader(Obj):
    def __init__(self, dataset: Dataset, batch, drop_last: bool):
        super().__init__()
        self.dataset, self.batch, self.drop_last = dataset, batch, drop_last

    def structural_key(self, key):
        return ("loader", key(self.dataset), self.batch, self.drop_last)

    def batches(self) -> list:
        """The distinct batches a pass yields: the full one, and the last if smaller."""
        item, n, b = self.dataset.item, self.dataset.length, self.batch
        if b is None:
            return [item]
        if not isinstance(b, int) or isinstance(b, S.Expr):
            return [collate(item, b)]
        if isinstance(n, int) and not isinstance(n, S.Expr):
            sizes = [b] if n >= b else []
            if n % b and not self.drop_last:
                sizes.append(n % b)
            return [collate(item, s) for s in sizes] or [collate(item, b)]
        out = [collate(item, b)]
        if not self.drop_last:
            out.append(collate(item, S.sym("last_batch")))
        return out


def collate(item, b):
    """default_collate: a batch of `b` items."""
    if isinstance(item, TensorValue):
        return TensorValue(None if item.shape is None else (b,) + tuple(item.shape), item.dtype)
    if isinstance(item, bool):
        return TensorValue((b,), "bool")
    if isinstance(item, (int, S.Expr)) or item is _LABEL:
        return TensorValue((b,), "int64")
    if isinstance(item, float):
        return TensorValue((b,), "float64")
    if isinstance(item, ListVal):
        return ListVal([collate(x, b) for x in item.items], "list" if item.kind == "list" else "tuple")
    if isinstance(item, DictVal):
        return DictVal({k: collate(v, b) for k, v in item.items.items()})
    return UNKNOWN


class _Label:
    """A class index (an int of unknown value)."""


_LABEL = _Label()


# -- transforms ------------------------------------------------------------------------------
def _size_pair(size):
    if isinstance(size, (int, S.Expr)) and not isinstance(size, bool):
        return size, size
    if isinstance(size, ListVal) and len(size.items) == 2:
        return size.items[0], size.items[1]
    return None


def _to_tensor(x):
    if isinstance(x, Image):
        return TensorValue((x.c, x.h, x.w), "float32")
    return x if isinstance(x, TensorValue) else UNKNOWN


def _resize(size):
    def fn(x):
        pair = _size_pair(size) if not isinstance(size, (int, S.Expr)) else None
        if isinstance(x, Image):
            if pair is not None:
                return Image(pair[0], pair[1], x.c)
            if x.h == x.w and x.h is not UNKNOWN:
                return Image(size, size, x.c)  # the shorter side of a square image
            return Image(UNKNOWN, UNKNOWN, x.c)
        if isinstance(x, TensorValue) and x.shape is not None and len(x.shape) >= 2:
            if pair is not None:
                return TensorValue(tuple(x.shape[:-2]) + pair, x.dtype)
            if x.shape[-1] == x.shape[-2] and x.shape[-1] is not UNKNOWN:
                return TensorValue(tuple(x.shape[:-2]) + (size, size), x.dtype)
            return TensorValue(tuple(x.shape[:-2]) + (UNKNOWN, UNKNOWN), x.dtype)
        return UNKNOWN
    return fn


def _crop(size):
    pair = _size_pair(size)

    def fn(x):
        if pair is None:
            return UNKNOWN
        if isinstance(x, Image):
            return Image(pair[0], pair[1], x.c)
        if isinstance(x, TensorValue) and x.shape is not None and len(x.shape) >= 2:
            return TensorValue(tuple(x.shape[:-2]) + pair, x.dtype)
        return UNKNOWN
    return fn


def _grayscale(n):
    def fn(x):
        if isinstance(x, Image):
            return Image(x.h, x.w, n)
        if isinstance(x, TensorValue) and x.shape is not None and len(x.shape) >= 3:
            return TensorValue(tuple(x.shape[:-3]) + (n,) + tuple(x.shape[-2:]), x.dtype)
        return UNKNOWN
    return fn


def _compose(parts):
    def fn(x):
        for p in parts:
            x = p.fn(x) if isinstance(p, Transform) and p.fn is not None else UNKNOWN
        return x
    return fn


def _arg(args, kwargs, i, name, default=None):
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def make_transform(engine, short, args, kwargs):
    if short == "ToTensor" or short == "PILToTensor":
        return Transform(_to_tensor)
    if short == "Resize":
        return Transform(_resize(_arg(args, kwargs, 0, "size")))
    if short in ("CenterCrop", "RandomCrop", "RandomResizedCrop"):
        return Transform(_crop(_arg(args, kwargs, 0, "size")))
    if short == "Grayscale":
        n = _arg(args, kwargs, 0, "num_output_channels", 1)
        return Transform(_grayscale(n) if isinstance(n, int) else None)
    if short in _KEEP:
        return Transform(lambda x: x)
    if short == "Compose":
        parts = engine.iterate(None, _arg(args, kwargs, 0, "transforms"))
        return Transform(_compose(parts) if parts is not None else None)
    return UNKNOWN


# -- datasets and loaders ------------------------------------------------------------------
def make_image_dataset(engine, short, args, kwargs):
    h, w, c, n_train, n_test = _IMAGE_DATASETS[short]
    transform = kwargs.get("transform", args[1] if short == "ImageFolder" and len(args) > 1 else None)
    train = kwargs.get("train", True)
    image = Image(h, w, c)
    if transform is None:
        item = image
    elif isinstance(transform, Transform) and transform.fn is not None:
        item = transform.fn(image)
    else:
        item = UNKNOWN
    if isinstance(item, Image):
        item = UNKNOWN  # a PIL image: no tensor shape until ToTensor
    length = n_train if train is True else n_test if train is False else None
    return Dataset(ListVal([item, _LABEL], "tuple"), length)


def tensor_dataset(args):
    if not args or not all(isinstance(t, TensorValue) and t.shape for t in args):
        return UNKNOWN
    n = args[0].shape[0]
    return Dataset(ListVal([TensorValue(tuple(t.shape[1:]), t.dtype) for t in args], "tuple"),
                   n if isinstance(n, int) and not isinstance(n, S.Expr) else None)


def random_split(engine, args, kwargs):
    ds = _arg(args, kwargs, 0, "dataset")
    lengths = engine.iterate(None, _arg(args, kwargs, 1, "lengths"))
    if not isinstance(ds, Dataset) or lengths is None:
        return UNKNOWN
    if all(isinstance(x, float) for x in lengths) and isinstance(ds.length, int):
        # Fractions, as torch does it: floors, then the remainder one by one from the first.
        sizes = [int(ds.length * f) for f in lengths]
        for i in range(ds.length - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
    return ListVal([Dataset(ds.item, n if isinstance(n, int) else None) for n in lengths], "list")


def data_loader(engine, args, kwargs):
    ds = _arg(args, kwargs, 0, "dataset")
    if not isinstance(ds, Dataset):
        return UNKNOWN
    batch = _arg(args, kwargs, 1, "batch_size", 1)
    drop_last = kwargs.get("drop_last", False)
    if kwargs.get("collate_fn") is not None or kwargs.get("batch_sampler") is not None:
        return UNKNOWN
    return Loader(ds, batch, drop_last is True)


def call(engine, name: str, args, kwargs):
    """A modelled data-pipeline call by its qualified name, or None when not one."""
    short = name.rsplit(".", 1)[-1]
    if name.startswith("torchvision.transforms"):
        return make_transform(engine, short, args, kwargs)
    if name.startswith("torchvision.datasets"):
        return make_image_dataset(engine, short, args, kwargs) if short in _IMAGE_DATASETS else UNKNOWN
    if name in ("torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"):
        return tensor_dataset(args)
    if name in ("torch.utils.data.random_split", "torch.utils.data.dataset.random_split"):
        return random_split(engine, args, kwargs)
    if name in ("torch.utils.data.Subset",):
        indices = engine.iterate(None, _arg(args, kwargs, 1, "indices"))
        ds = _arg(args, kwargs, 0, "dataset")
        return Dataset(ds.item, len(indices) if indices is not None else None) if isinstance(ds, Dataset) else UNKNOWN
    if name in ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"):
        return data_loader(engine, args, kwargs)
    return None


def length(v):
    """len() of a dataset or loader, or None when not one of them."""
    if isinstance(v, Dataset):
        return v.length if v.length is not None else UNKNOWN
    if isinstance(v, Loader):
        n, b = v.dataset.length, v.batch
        if isinstance(n, int) and isinstance(b, int) and b > 0:
            return n // b if v.drop_last else -(-n // b)
        return UNKNOWN
    return None


def items(v):
    """What iterating a dataset or loader yields (distinct items), or None."""
    if isinstance(v, Loader):
        return v.batches()
    if isinstance(v, Dataset):
        return [v.item]
    return None


def attr(v, name):
    if isinstance(v, Loader) and name == "dataset":
        return v.dataset
    if isinstance(v, Loader) and name == "batch_size":
        return v.batch
    return None
