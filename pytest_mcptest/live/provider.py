"""What every model provider shares: model names, settings, replies, errors, keys.

A model is written ``provider:name`` (``anthropic:claude-sonnet-4-5``,
``openai:gpt-4o-mini``); a bare ``claude-*`` or ``gpt-*``/``o<digit>*`` name is read as
its obvious provider, so suites written before providers existed keep working.

A provider turns the runner's neutral transcript (OpenAI-shaped chat messages: the
``conversation.turns`` a cassette stores) and the presented tools into one request of
its own wire format, and the answer back into a :class:`Reply`: text, tool calls, token
usage, the model id the API reported, its stop reason. Nothing here imports a model
SDK: :func:`~.providers.make_provider` imports the one asked for, and a missing SDK is a
:class:`LiveError` naming the extra to install.

Keys come only from the SDKs' own environment variables and are never passed around
in this process: the SDK client reads them itself. :func:`key_redactor` removes their
values (by the rules a cassette is written with) from any text or JSON value before it
leaves the live tier.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Mapping, Optional

import attrs

from ..engine.trace import Tokens
from ..engine.values import is_number
from ..redact import Redactor

# ``openai-responses``: the same models and keys as ``openai``, asked through the Responses API
PROVIDERS = ("anthropic", "openai", "openai-responses")
KEY_VARIABLES = {"anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"), "openai": ("OPENAI_API_KEY",),
                 "openai-responses": ("OPENAI_API_KEY",)}
BASE_URL_VARIABLES = {"anthropic": "ANTHROPIC_BASE_URL", "openai": "OPENAI_BASE_URL",
                      "openai-responses": "OPENAI_BASE_URL"}
EXTRA_HINT = "pip install 'mcptest[live]'"


class LiveError(Exception):
    """A live run could not be done: one line that says what and where, no traceback.

    ``completed`` maps run index -> run dict for the runs that finished before the
    failure (the record modes may keep them).
    """

    def __init__(self, message: str, completed: Optional[dict] = None):
        super().__init__(message)
        self.completed = dict(completed or {})


class InfraError(LiveError):
    """A run ended by its infrastructure, not by the agent: ``cause`` is one of
    ``engine.infra.CAUSES`` (retries exhausted on 429 or 5xx, a timeout, a lost connection, a
    server that would not start). The runner records such a run as ``infra_error``."""

    def __init__(self, message: str, cause: str):
        super().__init__(message)
        self.cause = cause


def infra_cause(exc: Exception) -> Optional[str]:
    """The infrastructure cause of an SDK exception, or None (a refused key, a bad request)."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    if name == "APITimeoutError":
        return "timeout"
    if name == "APIConnectionError":
        return "connection"
    if status == 429:
        return "rate_limited"
    if isinstance(status, int) and status >= 500:
        return "server_error"
    return None


@attrs.frozen
class ModelRef:
    """A parsed ``provider:name``."""

    provider: str
    name: str

    def __str__(self) -> str:
        return f"{self.provider}:{self.name}"


_BARE = ((re.compile(r"^claude-"), "anthropic"), (re.compile(r"^(gpt-|o\d|chatgpt-)"), "openai"))


def parse_model(text: Any) -> ModelRef:
    """``"anthropic:claude-sonnet-4-5"`` -> ``ModelRef("anthropic", "claude-sonnet-4-5")``.

    Raises :class:`LiveError` for an unknown provider or a bare name whose provider is
    not obvious.
    """
    if not isinstance(text, str) or not text.strip():
        raise LiveError(f"a model must be written provider:name (for example openai:gpt-4o-mini), found {text!r}")
    text = text.strip()
    provider, sep, name = text.partition(":")
    if sep:
        if provider not in PROVIDERS:
            raise LiveError(f"unknown model provider {provider!r} in {text!r}; expected one of "
                            f"{', '.join(PROVIDERS)} (any OpenAI-compatible server is openai: with a base_url)")
        if not name.strip():
            raise LiveError(f"model {text!r} names no model after {provider}:")
        return ModelRef(provider, name.strip())
    for pattern, known in _BARE:
        if pattern.match(text):
            return ModelRef(known, text)
    raise LiveError(f"model {text!r} names no provider; write anthropic:{text} or openai:{text}")


# --------------------------------------------------------------------------- settings


@attrs.frozen
class Price:
    """US dollars per million tokens, input and output."""

    input: float
    output: float


@attrs.frozen
class ModelSettings:
    """How to reach a model and how much of it to use. From a suite's ``models:`` block
    (see :func:`settings_for`); every field has a working default."""

    base_url: Optional[str] = None
    timeout: float = 120.0             # seconds per request
    max_retries: int = 2               # on 408/409/429/5xx and connection errors, honouring retry-after
    max_tokens: Optional[int] = None   # per reply (Anthropic needs one: 4096 when unset)
    temperature: Optional[float] = None
    requests_per_minute: Optional[int] = None
    tokens_per_minute: Optional[int] = None
    price: Optional[Price] = None      # overrides the built-in price table
    item_max_tokens: Optional[int] = None       # per-item budget, summed over every run
    item_max_cost_usd: Optional[float] = None
    stream: bool = False               # OpenAI: ask for the answer as a stream of events


_SETTING_KINDS = {
    "base_url": "url", "timeout": "positive", "max_retries": "count", "max_tokens": "positive_int",
    "temperature": "number", "requests_per_minute": "positive_int", "tokens_per_minute": "positive_int",
    "price": "price", "item_max_tokens": "positive_int", "item_max_cost_usd": "positive", "stream": "bool",
}


def _setting(key: str, value: Any, where: str) -> Any:
    kind = _SETTING_KINDS[key]
    here = f"{where}.{key}"
    if kind == "url":
        if not isinstance(value, str) or not re.match(r"^https?://", value):
            raise ValueError(f"{here}: expected an http(s) URL, found {value!r}")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"{here}: expected true or false, found {value!r}")
        return value
    if kind == "price":
        if (not isinstance(value, Mapping) or set(value) != {"input", "output"}
                or not all(is_number(v) and v >= 0 for v in value.values())):
            raise ValueError(f"{here}: expected {{input: USD per million tokens, output: USD per million "
                             f"tokens}}, found {value!r}")
        return Price(float(value["input"]), float(value["output"]))
    if not is_number(value):
        raise ValueError(f"{here}: expected a number, found {value!r}")
    if kind == "count" and (not isinstance(value, int) or value < 0):
        raise ValueError(f"{here}: expected a whole number >= 0, found {value!r}")
    if kind == "positive_int" and (not isinstance(value, int) or value < 1):
        raise ValueError(f"{here}: expected a whole number >= 1, found {value!r}")
    if kind == "positive" and value <= 0:
        raise ValueError(f"{here}: expected a number > 0, found {value!r}")
    return value


def settings_for(models: Optional[Mapping], ref: ModelRef) -> ModelSettings:
    """The settings of ``ref`` from a suite's ``models:`` block.

    The block is keyed by provider (``openai:``, for every openai model) and by full
    model (``openai:gpt-4o-mini``); the model's entry wins over its provider's, key by
    key. Raises ``ValueError`` naming ``models.<key>.<field>`` for a bad value or an
    unknown field.
    """
    values: dict = {}
    for key in (ref.provider, str(ref)):
        entry = (models or {}).get(key)
        if entry is None:
            continue
        where = f"models.{key}"
        if not isinstance(entry, Mapping):
            raise ValueError(f"{where}: expected a mapping of settings, found {entry!r}")
        for field, value in entry.items():
            if field not in _SETTING_KINDS:
                raise ValueError(f"{where}: unknown setting {field!r}; expected one of "
                                 f"{', '.join(sorted(_SETTING_KINDS))}")
            values[field] = _setting(field, value, where)
    return ModelSettings(**values)


# --------------------------------------------------------------------------- replies


@attrs.frozen
class ToolUse:
    """One tool call the model asked for, by the name it was shown. ``bad_args`` holds the
    raw argument text when it was not a JSON object (the call is then not executed)."""

    id: str
    name: str
    args: Any
    bad_args: Optional[str] = None


@attrs.frozen
class Reply:
    """One model answer, provider-neutral: ``tokens`` is what the API said it used (both
    parts, made by :meth:`Tokens.of`), ``None`` when it did not say."""

    text: str
    calls: tuple[ToolUse, ...]
    tokens: Optional[Tokens]
    model: Optional[str]
    stop_reason: Optional[str]


@attrs.frozen
class ToolDef:
    """A tool as presented to a model: the name it is shown under, its description and
    input schema."""

    name: str
    description: str
    input_schema: dict


class Provider:
    """One model behind one SDK client. Subclasses name the SDK module and its async
    client class, and implement :meth:`_request` (one call of the SDK, returning the
    answer's JSON through :meth:`_json`) and :meth:`_reply` (that JSON -> Reply)."""

    SDK = ""
    CLIENT = ""

    def __init__(self, ref: ModelRef, settings: ModelSettings):
        import importlib

        self.ref = ref
        self.settings = settings
        self.ignored: set[str] = set()  # settings this provider could not send
        try:
            sdk = importlib.import_module(self.SDK)
        except ImportError:
            raise missing_extra(self.SDK) from None
        # The SDK reads the key (and, without base_url, the *_BASE_URL variable) itself.
        self.pacer = None  # this endpoint's pause, read from every response's rate-limit headers
        try:
            http = sdk.DefaultAsyncHttpxClient(event_hooks={"response": [self._on_response]})
            self._client = getattr(sdk, self.CLIENT)(base_url=settings.base_url, timeout=settings.timeout,
                                                     max_retries=settings.max_retries, http_client=http)
        except Exception as exc:  # noqa: BLE001 - a bad URL or credential setting in the environment
            raise LiveError(scrub(f"{ref}: the {self.SDK} client could not be set up: {exc}")) from None
        from .adaptive import pacer_for

        self.pacer = pacer_for(f"{ref.provider} {self.base_url}")

    async def _on_response(self, response) -> None:
        """Every HTTP response the SDK receives (retries too): its rate-limit headers (:mod:`.adaptive`)."""
        if self.pacer is not None:
            self.pacer.observe(response.headers, response.status_code)

    async def pace(self) -> None:
        """Wait while the provider's headers said this endpoint's window is nearly spent."""
        if self.pacer is not None:
            await self.pacer.wait()

    @property
    def base_url(self) -> str:
        return str(self._client.base_url).rstrip("/")

    def _json(self, raw: Any) -> Any:
        """The JSON of a raw SDK response (``with_raw_response``), read here so that a
        malformed answer is named instead of failing inside the SDK's typed models."""
        text = raw.http_response.text
        try:
            return json.loads(text)
        except ValueError:
            raise self.malformed(f"the body is not JSON: {text[:200]!r}") from None

    async def complete(self, system: Optional[str], turns: list, tools: list[ToolDef],
                       temperature: Optional[float] = None) -> Reply:
        """Ask the model for its next step after ``turns``; raise :class:`LiveError`."""
        temperature = self.settings.temperature if temperature is None else temperature
        try:
            data = await self._request(system, turns, tools, temperature)
        except LiveError:
            raise
        except Exception as exc:  # noqa: BLE001 - every SDK failure becomes one clear line
            cause = infra_cause(exc)
            if cause is not None:
                raise InfraError(scrub(self._describe(exc)), cause) from None
            raise LiveError(scrub(self._describe(exc))) from None
        if not isinstance(data, dict):
            raise self.malformed(f"the answer is not a JSON object ({type(data).__name__})")
        try:
            return self._reply(data)
        except LiveError:
            raise
        except (AttributeError, KeyError, TypeError, ValueError) as exc:  # a shape no check above foresaw
            raise self.malformed(f"{type(exc).__name__}: {exc}") from None

    async def close(self) -> None:
        """Release the SDK client's connections."""
        await self._client.close()

    async def _request(self, system, turns, tools, temperature) -> Any:
        raise NotImplementedError

    def _reply(self, data: dict) -> Reply:
        raise NotImplementedError

    def malformed(self, what: str) -> LiveError:
        return LiveError(scrub(f"{self.ref}: malformed answer from {self.base_url}: {what}"))

    def _describe(self, exc: Exception) -> str:
        """One line for an SDK exception: what failed, the HTTP status and the API's message."""
        name = type(exc).__name__
        attempts = self.settings.max_retries + 1
        status = getattr(exc, "status_code", None)
        if name == "APITimeoutError":
            return (f"{self.ref}: no answer from {self.base_url} within {self.settings.timeout:g} s "
                    f"({attempts} attempt(s))")
        if name == "APIConnectionError":
            cause = exc.__cause__ or exc.__context__
            detail = f": {cause}" if cause is not None and str(cause) else ""
            return f"{self.ref}: could not reach {self.base_url} ({attempts} attempt(s)){detail}"
        if isinstance(status, int):
            message = _api_message(getattr(exc, "body", None)) or str(exc)
            if status in (401, 403):
                keys = " or ".join(KEY_VARIABLES[self.ref.provider])
                return f"{self.ref}: the API refused the key in {keys} (HTTP {status}): {message}"
            retried = f" after {attempts} attempt(s)" if status == 429 or status >= 500 else ""
            return f"{self.ref}: HTTP {status} from {self.base_url}{retried}: {message}"
        return f"{self.ref}: {name}: {exc}"


def _api_message(body: Any) -> Optional[str]:
    """The human part of an API error body (``{"error": {"message": ...}}`` in both APIs)."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
        if isinstance(inner, str):
            return inner
    return None


# --------------------------------------------------------------------------- making one


def require_key(ref: ModelRef, base_url: Optional[str]) -> None:
    """Fail with one line naming the variable when no key for ``ref`` is in the environment."""
    names = KEY_VARIABLES[ref.provider]
    if any(os.environ.get(n) for n in names):
        return
    line = f"{ref}: no API key: set {names[0]} in the environment"
    if ref.provider in ("openai", "openai-responses") and base_url:
        line += f" (a local OpenAI-compatible server at {base_url} accepts any value)"
    raise LiveError(line)


def missing_extra(sdk: str) -> LiveError:
    return LiveError(f"live runs need the `{sdk}` SDK, which is not installed: {EXTRA_HINT}")


# --------------------------------------------------------------------------- secrets

def key_redactor() -> Redactor:
    """The redactor of every provider key variable set now (with the secret shapes every
    recording hides): the same rules as what a cassette is written with."""
    return Redactor({os.environ.get(n, "") for names in KEY_VARIABLES.values() for n in names})


def scrub(text: str) -> str:
    """``text`` (an error message) with every provider key in it replaced by ``<redacted>``."""
    return key_redactor().text(text)
