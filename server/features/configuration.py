"""Settings from initializationOptions, workspace/configuration and didChangeConfiguration.

Invalid values fall back to their defaults and the user is told once per problem
(window/showMessage); the server never refuses to start over a setting.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..guard import feature
from ..paths import path_to_uri
from ..settings import SECTION, Settings, parse_settings

if TYPE_CHECKING:
    from ..app import ShapeLanguageServer


def apply_raw(ls: "ShapeLanguageServer", raw: Any, base: Settings | None = None) -> None:
    settings, problems = parse_settings(raw, base if base is not None else ls.settings)
    for problem in problems:
        ls.show_message(problem, types.MessageType.Warning)
        ls.log_message(problem, types.MessageType.Warning)
    ls.apply_settings(settings)


def supports_pull_config(ls: "ShapeLanguageServer") -> bool:
    ws = ls.client_capabilities.workspace
    return bool(ws and ws.configuration)


async def fetch(ls: "ShapeLanguageServer") -> None:
    """Ask the client for the "shapesense" section and apply it over the defaults."""
    if not supports_pull_config(ls):
        return
    scope = ls.workspace_roots[0] if ls.workspace_roots else None
    item = types.ConfigurationItem(section=SECTION, scope_uri=path_to_uri(scope) if scope else None)
    result = await ls.workspace_configuration_async(types.ConfigurationParams(items=[item]))
    raw = result[0] if result else None
    if raw is None:
        return  # the client has nothing for us: keep initializationOptions
    apply_raw(ls, raw, ls.initial_settings)


def register(ls: "ShapeLanguageServer") -> None:
    @feature(ls, types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: "ShapeLanguageServer", params: types.DidChangeConfigurationParams):
        raw = params.settings
        if isinstance(raw, dict) and isinstance(raw.get(SECTION), dict):
            apply_raw(ls, raw[SECTION], ls.initial_settings)
        elif supports_pull_config(ls):
            await fetch(ls)
        elif isinstance(raw, dict) and raw:
            apply_raw(ls, raw, ls.initial_settings)
