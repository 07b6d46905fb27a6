"""Which provider serves a model reference: its own module, so that the providers
(which build on :mod:`.provider`) and the base module do not import each other."""

from __future__ import annotations

import os

from .provider import BASE_URL_VARIABLES, ModelRef, ModelSettings, Provider, require_key


def make_provider(ref: ModelRef, settings: ModelSettings = ModelSettings()) -> Provider:
    """The provider for ``ref``, its SDK imported now. Raises :class:`LiveError` when the
    SDK is missing (naming the extra) or no key is set (naming the variable)."""
    base_url = settings.base_url or os.environ.get(BASE_URL_VARIABLES[ref.provider])
    require_key(ref, base_url)
    if ref.provider == "anthropic":
        from .anthropic import AnthropicProvider

        return AnthropicProvider(ref, settings)
    if ref.provider == "openai-responses":
        from .openai import OpenAIResponsesProvider

        return OpenAIResponsesProvider(ref, settings)
    from .openai import OpenAIProvider

    return OpenAIProvider(ref, settings)
