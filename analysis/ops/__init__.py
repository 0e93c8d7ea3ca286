"""Operator specs, one module per op family.

Importing this package registers every spec in `spec.REGISTRY`; each family module only
has to exist here (no list to keep in sync).
"""
import importlib
import pkgutil

for _info in pkgutil.iter_modules(__path__):
    if _info.name != "spec":
        importlib.import_module(f"{__name__}.{_info.name}")
