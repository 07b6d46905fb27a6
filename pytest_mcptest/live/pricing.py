"""What a run cost: ``cost_micros`` (millionths of a US dollar) from a small price table.

Prices are list prices in US dollars per million tokens (input, output), so
``tokens * price`` is already in micro-dollars. A model id the API returns often carries
a date (``claude-sonnet-4-5-20250929``, ``gpt-4o-mini-2024-07-18``): the longest table
entry that is the id, or the id less such a date, prices it. An unknown model has no
cost (absent, never zero); the runner says so once per recording. A ``price:`` in the
suite's ``models:`` block overrides the table. Cache reads and writes are priced as
plain input: an upper bound for cached prompts.

The table holds the providers' published list prices for the models it names, as
known when it was written; newer models are not in it and prices change, so a
``price:`` setting is the way to be exact.

On replay, :func:`replay_costs` prices the recorded runs that have tokens but no cost (an
imported log, a recorder that knew no price) with the same table and the same rounding.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Optional

import msgspec

from ..engine.trace import Tokens
from .provider import Price

PRICES: dict[str, Price] = {
    # Anthropic
    "claude-opus-4-5": Price(5, 25),
    "claude-opus-4-1": Price(15, 75),
    "claude-opus-4": Price(15, 75),
    "claude-sonnet-4-5": Price(3, 15),
    "claude-sonnet-4": Price(3, 15),
    "claude-haiku-4-5": Price(1, 5),
    "claude-3-7-sonnet": Price(3, 15),
    "claude-3-5-sonnet": Price(3, 15),
    "claude-3-5-haiku": Price(0.8, 4),
    "claude-3-haiku": Price(0.25, 1.25),
    # OpenAI
    "gpt-5": Price(1.25, 10),
    "gpt-5-mini": Price(0.25, 2),
    "gpt-5-nano": Price(0.05, 0.4),
    "gpt-4.1": Price(2, 8),
    "gpt-4.1-mini": Price(0.4, 1.6),
    "gpt-4.1-nano": Price(0.1, 0.4),
    "gpt-4o": Price(2.5, 10),
    "gpt-4o-mini": Price(0.15, 0.6),
    "o3": Price(2, 8),
    "o3-mini": Price(1.1, 4.4),
    "o4-mini": Price(1.1, 4.4),
}

_DATE = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$")


def price_of(model: Optional[str]) -> Optional[Price]:
    """The table's price for a model id, allowing a trailing date; ``None`` when unknown."""
    if not model:
        return None
    name = model.rsplit("/", 1)[-1]  # "openai/gpt-4o-mini" on routers
    return PRICES.get(name) or PRICES.get(_DATE.sub("", name))


def cost_micros(tokens: Tokens, price: Price) -> int:
    """``tokens`` (input and output both known) at ``price``, in micro-dollars, rounded half
    up (exact decimal arithmetic)."""
    exact = Decimal(tokens.input) * Decimal(str(price.input)) + Decimal(tokens.output) * Decimal(str(price.output))
    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def _name(model: str) -> str:
    """A model id without its provider: ``openai:gpt-5`` and ``openai/gpt-5`` are ``gpt-5``."""
    return model.partition(":")[2] if ":" in model else model


def override_price(models: Optional[dict], model: Optional[str]) -> Optional[Price]:
    """The ``price:`` the suite's ``models:`` block sets for ``model`` (``provider:name``): by
    the model's key, else its provider's; ``None`` when it sets none or cannot be read."""
    if not models or not model:
        return None
    from .provider import LiveError, parse_model, settings_for

    try:
        return settings_for(models, parse_model(model)).price
    except (LiveError, ValueError):
        return None  # a bad models: block is reported where the suite is read, not on replay


def replay_costs(runs: tuple, recorded_model: Optional[str], suite_model: Optional[str],
                 models: Optional[dict]) -> tuple[tuple, Optional[str]]:
    """The runs with ``cost_micros`` worked out where the recording has tokens but no cost, and
    a note when a model was named but has no price.

    A run's model is the one its ``meta.model`` names (what answered), else the cassette's
    ``meta.model``, else the suite's ``model:``. The price is the suite's ``price:`` for its
    model (in ``models:``), else the same table and rounding the live tier bills with
    (:func:`price_of`, :func:`cost_micros`), so a replayed run costs what recording it did.
    A recorded ``cost_micros`` is kept as it is."""
    override = override_price(models, suite_model)
    out, unpriced = [], []
    for run in runs:
        tokens = run.tokens
        if run.cost_micros is not None or tokens is None or tokens.input is None or tokens.output is None:
            out.append(run)
            continue
        named = (run.meta or {}).get("model") if isinstance((run.meta or {}).get("model"), str) else None
        model = named or recorded_model or suite_model
        price = override or (price_of(_name(model)) if model else None)
        if price is None:
            if model and model not in unpriced:
                unpriced.append(model)
            out.append(run)
            continue
        out.append(msgspec.structs.replace(run, cost_micros=cost_micros(tokens, price)))
    note = None
    if unpriced:
        note = (f"cost_micros left out: no known price for {', '.join(unpriced)} "
                "(set price: {input: ..., output: ...} for it under models:)")
    return tuple(out), note
