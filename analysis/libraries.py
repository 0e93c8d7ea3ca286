"""Installed libraries, analysed from source.

A model file imports building blocks from pure-Python libraries (torchvision.ops, timm.layers,
x_transformers, ...). Their source is read from the `sys.path` of the user's Python
environment and analysed like workspace code, lazily (a def runs only when a call reaches
it), and never imported or executed. What stays out:

- packages the engine models by name (torch itself is the op specs; einops, typing, ...:
  `pybuiltins.EXTERNAL_ROOTS`), the standard library, and compiled modules;
- the folders of the workspace and the current directory (a workspace file named like a
  library must not stand in for it, and workspace files are resolved by `db` already).

`library_paths()` gives the search path: the one passed in (the server asks the configured
interpreter for its `sys.path`), else the interpreter running the analysis.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from . import pybuiltins

_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))


def default_paths() -> tuple:
    """The running interpreter's import path, without the current directory."""
    cwd = os.getcwd()
    out = []
    for p in sys.path:
        if not p or os.path.abspath(p) == cwd or not os.path.isdir(p):
            continue
        out.append(os.path.abspath(p))
    return tuple(out)


def interpreter_paths(python: str, timeout: float = 10.0) -> tuple | None:
    """The import path of another interpreter, asked in isolated mode (`-I`: no current
    directory, no PYTHON* variables, no user site) from a neutral working directory, so no
    file of a workspace can run. None if it cannot be asked."""
    code = "import sys, json; print(json.dumps([p for p in sys.path if p]))"
    try:
        out = subprocess.run([python, "-I", "-c", code], capture_output=True, text=True,
                             timeout=timeout, cwd=os.path.expanduser("~") if os.path.isdir(os.path.expanduser("~")) else "/",
                             stdin=subprocess.DEVNULL)
        paths = json.loads(out.stdout.strip().splitlines()[-1])
        return tuple(p for p in paths if isinstance(p, str) and os.path.isdir(p))
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        return None


class LibraryResolver:
    """Dotted module name -> the .py file an installed library defines it in (cached)."""

    def __init__(self, paths: tuple, excluded: tuple = ()):
        # The workspace's own folder (or one holding it: an editable install, a src/ layout
        # on sys.path) is no library; a virtualenv inside the workspace is.
        self.paths = tuple(p for p in paths if not any(_inside(e, p) for e in excluded))
        self._cache: dict = {}
        self._dists: dict = {}  # folder -> {top-level package: (requires torch, "name-version")}
        self._roots: dict = {}  # (folder, top-level package) -> (requires torch, "name-version")
        self._listings: dict = {}  # folder -> the names in it (has_top_level)
        self._imports_torch: dict = {}  # (folder, top-level package) -> its source imports torch

    def resolve(self, dotted: str) -> str | None:
        if not dotted or dotted in self._cache:
            return self._cache.get(dotted)
        root = dotted.split(".")[0]
        found = None
        if root not in pybuiltins.EXTERNAL_ROOTS and root not in _STDLIB:
            rel = dotted.replace(".", os.sep)
            for base in self.paths:
                for cand in (os.path.join(base, rel + ".py"), os.path.join(base, rel, "__init__.py")):
                    if os.path.isfile(cand):
                        found = cand
                        break
                if found or os.path.isdir(os.path.join(base, root)):
                    about = self._about_tensors(base, root) if found else False
                    if not about or (about == TORCH_EXTRA and not _EXTRA_PARTS & set(dotted.split(".")[1:])):
                        found = None
                    break  # the first folder that has the package is the one Python uses
        self._cache[dotted] = found
        return found

    def _about_tensors(self, base: str, root: str):
        """Does the distribution that installed package `root` depend on torch? A library
        that does not (a logger, a config parser) defines no tensor shapes, and reading its
        source would only cost time: it stays opaque. Unknown distributions are read, and
        so are those whose source imports torch without declaring it (research packages
        that expect torch installed already: fair-esm). TORCH_EXTRA: only the subpackage
        named for the extra that requires torch is read."""
        requires = self._distribution_of(base, root)[0]
        if requires is True:
            return True
        key = (base, root)
        if key not in self._imports_torch:
            # (torch behind an extra and imported by the package's files outside the extra's
            # subpackage: all of it is read, as transformers or diffusers; else only that
            # subpackage, gluonts.torch)
            skip = _EXTRA_PARTS if requires == TORCH_EXTRA else frozenset()
            self._imports_torch[key] = _source_imports_torch(os.path.join(base, root), skip)
        return self._imports_torch[key] or requires

    def _distribution_of(self, base: str, root: str) -> tuple:
        """(requires torch, "name-version") of the wheel in `base` that installed `root`:
        the dist-info named like the package when its RECORD lists it (one file read, not
        every dist-info of a site-packages with hundreds), else all of them, once."""
        found = self._roots.get((base, root))
        if found is None:
            found = _named_distribution(base, root)
            if found is None:
                index = self._dists.get(base)
                if index is None:
                    index = self._dists[base] = _distributions(base)
                found = index.get(root, (True, None))
            self._roots[(base, root)] = found
        return found

    def distribution(self, path: str) -> str | None:
        """"name-version" of the installed distribution a library file belongs to (the disk
        cache files its entries by it), else None (not a library file, or not from a wheel)."""
        bases = [b for b in self.paths if _inside(path, b)]
        if not bases:
            return None
        base = max(bases, key=len)  # site-packages, not the lib folder holding it
        root = os.path.relpath(path, base).split(os.sep)[0]
        root = root[:-3] if root.endswith(".py") else root
        return self._distribution_of(base, root)[1]

    def has_top_level(self, root: str) -> bool:
        """Is there a module or package `root` in any form (source, compiled, a folder) on
        the path? False: `import root` raises ImportError in that environment."""
        for base in self.paths:
            names = self._listings.get(base)
            if names is None:
                try:
                    names = self._listings[base] = frozenset(os.listdir(base))
                except OSError:
                    names = self._listings[base] = frozenset()
            if root in names or any(n.startswith(root + ".") for n in names):
                return True
        return False

    def owns(self, path: str) -> bool:
        """Is this file inside one of the library folders?"""
        return any(_inside(path, p) for p in self.paths)


# Distributions whose dependents compute with tensors (their source is read, not kept opaque).
_TENSOR_DISTRIBUTIONS = ("torch", "pytorch", "einops")


def _torch_dependents(base: str) -> dict:
    """{top-level package: its distribution requires torch} for the wheels in a folder."""
    return {top: torch for top, (torch, _) in _distributions(base).items()}


def _distributions(base: str) -> dict:
    """{top-level package: (its distribution requires torch, "name-version")} for the
    wheels in a folder, from each `*.dist-info`'s name, RECORD (which files it installed)
    and METADATA."""
    out: dict = {}
    try:
        infos = [n for n in os.listdir(base) if n.endswith(".dist-info")]
    except OSError:
        return out
    for info in infos:
        read = _read_distribution(base, info)
        if read is None:
            continue
        torch, dist, tops = read
        for top in tops:
            out[top] = (out.get(top, (False, dist))[0] or torch, dist)
    return out


def _named_distribution(base: str, root: str):
    """(requires torch, "name-version") of a dist-info in `base` named like package `root`
    whose RECORD installed it, else None."""
    want = _normal(root)
    try:
        infos = [n for n in os.listdir(base) if n.endswith(".dist-info")]
    except OSError:
        return None
    named = [n for n in infos if _normal(n.split("-", 1)[0]) == want]
    # else one whose top_level.txt names it (Pillow installs PIL): a small file, where
    # reading every RECORD (torch's is 1.5 MB) is what the whole scan costs
    listed = [n for n in infos if n not in named and root in _top_level(os.path.join(base, n))]
    for info in named + listed:
        read = _read_distribution(base, info)
        if read is not None and root in read[2]:
            return read[0], read[1]
    return None


def _top_level(folder: str) -> list:
    try:
        with open(os.path.join(folder, "top_level.txt"), encoding="utf-8", errors="replace") as f:
            return f.read(20_000).split()
    except OSError:
        return []


def _normal(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def _read_distribution(base: str, info: str):
    """(requires torch, "name-version", its top-level packages) from one `*.dist-info`'s
    name, METADATA and RECORD (which files it installed); None if unreadable."""
    folder = os.path.join(base, info)
    try:
        with open(os.path.join(folder, "METADATA"), encoding="utf-8", errors="replace") as f:
            meta = f.read(200_000)
        with open(os.path.join(folder, "RECORD"), encoding="utf-8", errors="replace") as f:
            record = f.read(2_000_000)
    except OSError:
        return None
    # (einops too: einops-exts' rearrange_many, a tensor library without torch in its metadata)
    tensor_lines = [line for line in meta.splitlines() if line.lower().startswith("requires-dist:")
                    and line.split(":", 1)[1].strip().split(";")[0].strip().lower().startswith(_TENSOR_DISTRIBUTIONS)]
    torch = any("extra ==" not in line for line in tensor_lines) or info.lower().startswith(_TENSOR_DISTRIBUTIONS)
    if not torch and any(_TORCH_EXTRA.search(line.split("extra ==", 1)[1]) for line in tensor_lines):
        # torch only behind an extra named for it (`gluonts[torch]`): the package's models live
        # in its subpackage named so (gluonts.torch); the rest (a pydantic config layer) stays opaque
        torch = TORCH_EXTRA
    tops = set()
    for line in record.splitlines():
        top = line.split(",", 1)[0].split("/", 1)[0]
        if top and not top.endswith((".dist-info", ".data")) and top != "..":
            tops.add(top[:-3] if top.endswith(".py") else top)
    return torch, info[:-len(".dist-info")], tops



TORCH_EXTRA = "extra"  # (_read_distribution: torch required only by an extra named for it)
_EXTRA_PARTS = frozenset({"torch", "pytorch"})
_TORCH_EXTRA = re.compile(r"^\s*['\"](?:py)?torch['\"]", re.IGNORECASE)
# At the start of a line: a module-level import, not one a function tries (scipy's conftest)
_IMPORTS_TORCH = re.compile(rb"^(?:import|from)[ \t]+(?:torch|einops)\b", re.MULTILINE)
_SCAN_FILES = 200  # a package's files read to find a torch import (the first ones os.walk gives)
_SCAN_BYTES = 64_000  # of each


def _source_imports_torch(package: str, skip=frozenset()) -> bool:
    """Does a module or package (path without `.py`) import torch or einops in its first
    public files? Private folders are skipped: a vendored compatibility layer (scipy's
    `_lib/array_api_compat/torch`) says nothing of what the package is about. Bounded: a
    large package that imports neither costs at most _SCAN_FILES reads."""
    if os.path.isfile(package + ".py"):
        files = [package + ".py"]
    else:
        files = []
        for folder, dirs, names in os.walk(package):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_", "test")) and d not in skip)
            files.extend(os.path.join(folder, n) for n in sorted(names)
                         if n.endswith(".py") and n != "conftest.py" and not n.startswith("test"))
            if len(files) >= _SCAN_FILES:
                break
    for path in files[:_SCAN_FILES]:
        try:
            with open(path, "rb") as f:
                if _IMPORTS_TORCH.search(f.read(_SCAN_BYTES)):
                    return True
        except OSError:
            continue
    return False


def _inside(path: str, folder: str) -> bool:
    folder = os.path.normpath(folder)
    path = os.path.normpath(path)
    return path == folder or path.startswith(folder + os.sep)
