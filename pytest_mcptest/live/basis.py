"""What a live run's numbers depend on: its basis, written into the run's ``meta.basis``.

Two recordings of the same suite can differ for reasons that are not the agent's: another
judge, another simulated user, a dated model behind the same name, another SDK or server
version, another turn limit. Each live run therefore pins what it was made with::

    {"mcptest": "0.1.0",
     "agent": {"model": "openai:gpt-4o-mini", "provider": "openai", "answered": "gpt-4o-mini-2024-07-18",
               "prompt_sha256": "..."},
     "judge": {"model": "openai:gpt-4o", "provider": "openai", "answered": "gpt-4o-2024-08-06",
               "prompt_sha256": "..."},
     "synthetic_user": {...},
     "sdk": {"mcp": "1.9.4", "openai": "1.97.0"},
     "max_turns": 10,
     "servers": {"shop": {"name": "shop", "version": "1.0.0", "protocol_version": "2025-06-18"}}}

``model`` is what the suite asked for, ``answered`` the id the API answered with (the last
reply's, as ``meta.model``); ``prompt_sha256`` the hash of the role's instructions (the
judge's: :func:`.judge.prompt_sha256`; the synthetic user's: its system prompt; the agent's:
its prompt and system prompt, as ``meta.prompt_sha256`` for drift). The JSON report gathers
these per item (``engine/basis.py``), and ``mcptest report --compare`` lists what differs.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Mapping, Optional


@lru_cache(maxsize=None)
def package_version(name: str) -> Optional[str]:
    """The installed version of the distribution ``name`` (None when it is not installed)."""
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def mcptest_version() -> str:
    from .. import __version__

    return __version__


def sdk_versions(models) -> dict:
    """``{sdk: version}`` of the MCP SDK and of each model SDK the recording used."""
    names = {"mcp"} | {m.provider.SDK for m in models if getattr(m.provider, "SDK", "")}
    return {name: version for name in sorted(names) if (version := package_version(name)) is not None}


def role(model, answered: Optional[str], prompt_hash: Optional[str] = None,
         temperature: Optional[float] = None) -> dict:
    """One model's part of the basis: as asked (``provider:name``), its provider, the id the
    API answered with, its instructions' hash and the temperature it was asked at (when set)."""
    ref = model.provider.ref
    out: dict = {"model": str(ref), "provider": ref.provider}
    if answered:
        out["answered"] = answered
    if prompt_hash is not None:
        out["prompt_sha256"] = prompt_hash
    temperature = model.settings.temperature if temperature is None else temperature
    if temperature is not None:
        out["temperature"] = temperature
    if model.settings.max_tokens is not None:
        out["max_tokens"] = model.settings.max_tokens
    return out


def run_basis(models, roles: Mapping[str, dict], servers: Mapping[str, dict], limits: Mapping[str, int]) -> dict:
    """A run's ``meta.basis``: mcptest's version, each role (``agent``, ``judge``,
    ``synthetic_user``), the SDKs, the turn limits and each server's name and version."""
    out: dict = {"mcptest": mcptest_version(), **{k: dict(v) for k, v in roles.items()},
                 "sdk": sdk_versions(models), **dict(limits)}
    if servers:
        out["servers"] = {name: dict(info) for name, info in sorted(servers.items())}
    return out
