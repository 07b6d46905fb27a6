"""Distractor accuracy (spec 001): pad the tool list with look-alikes, then score
whether the agent still chose the declared correct tools.

Three parts, all deterministic:

- :data:`CATALOG`, a bundled, fixed-order catalog of plausible but irrelevant tools
  (weather, currency, calendar and such) with realistic descriptions and input
  schemas, for ``source.from: catalog``;
- :func:`near_duplicates`, name-collision variants of real tools for
  ``source.from: near_duplicate`` (``_v2`` and ``_internal`` suffixes, casing,
  pluralization, a few more suffixes), taken kind by kind across ``of:`` so a small
  ``count`` spreads over every named tool;
- :func:`score_distractors`, the accuracy rule, which runs no model.

Injection never presents two tools with one name: a catalog entry or a variant whose
name equals a real tool's is skipped, and asking for more distractors than can be
drawn is an error rather than a silently shorter list.

The accuracy rule: per run, each distinct chosen id (a call's ``server.name``) is a
correct hit when a declared correct id names it, else a distractor hit when an
injected distractor id names it, else ignored (ids use the selection member rule:
dotted ids are server-qualified, bare ids match any server). Counting distinct ids
per run keeps a model that hammers the right tool from buying accuracy with repeats,
as the selection F1 does. ``accuracy`` is the integer percent
``chose_correct * 100 / chose_in_scope`` (rounded half up, like every percent in the
engine), summed over runs; nothing chosen in scope scores 0, except that zero declared
correct ids scores 100. A run *succeeds* when it chose only correct tools: at least one
call, every call correct (a run with no calls succeeds only in the vacuous case of no
correct ids). ``certified_lower`` is the Clopper-Pearson exact one-sided 95% lower bound
on the per-run success rate, in percent, rounded down to two decimals.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping, Optional, Sequence

import attrs

from .selection import _calls_of, call_id, member_matches, percent
from .stats import clopper_pearson_lower, lower_bound_percent
from .values import copy_json

SOURCES = ("catalog", "near_duplicate")


def _tool(name: str, description: str, properties: dict, required: Sequence[str] = ()) -> dict:
    schema: dict = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return {"name": name, "description": description, "inputSchema": schema}


def _s(description: str, **extra) -> dict:
    return {"type": "string", "description": description, **extra}


def _n(description: str, kind: str = "number", **extra) -> dict:
    return {"type": kind, "description": description, **extra}


CATALOG: tuple[dict, ...] = (
    _tool("convert_currency",
          "Convert an amount of money from one currency to another at the latest mid-market rate. "
          "Use ISO 4217 codes such as USD, EUR or JPY.",
          {"amount": _n("The amount to convert."), "from": _s("ISO 4217 code of the source currency."),
           "to": _s("ISO 4217 code of the target currency.")}, ["amount", "from", "to"]),
    _tool("get_exchange_rate_history",
          "Return daily closing exchange rates between two currencies over a date range, oldest first.",
          {"base": _s("ISO 4217 code of the base currency."), "quote": _s("ISO 4217 code of the quote currency."),
           "start_date": _s("First day, YYYY-MM-DD.", format="date"),
           "end_date": _s("Last day, YYYY-MM-DD.", format="date")}, ["base", "quote", "start_date", "end_date"]),
    _tool("get_weather_forecast",
          "Get the hourly and daily weather forecast for a city or coordinates: temperature, precipitation "
          "chance, wind and conditions, for up to 10 days ahead.",
          {"location": _s("City name, postal code, or 'lat,lon'."),
           "days": _n("How many days to forecast (1-10).", "integer", minimum=1, maximum=10),
           "units": _s("Unit system.", enum=["metric", "imperial"])}, ["location"]),
    _tool("get_air_quality",
          "Report the current air quality index (AQI) and pollutant concentrations (PM2.5, PM10, O3, NO2) "
          "for a location.",
          {"location": _s("City name or 'lat,lon'.")}, ["location"]),
    _tool("create_calendar_event",
          "Create an event on the user's calendar and optionally invite attendees by email.",
          {"title": _s("Event title."), "start": _s("Start time, ISO 8601.", format="date-time"),
           "end": _s("End time, ISO 8601.", format="date-time"),
           "attendees": {"type": "array", "items": {"type": "string", "format": "email"},
                         "description": "Email addresses to invite."},
           "location": _s("Where the event takes place.")}, ["title", "start", "end"]),
    _tool("list_calendar_events",
          "List calendar events between two times, ordered by start time.",
          {"time_min": _s("Earliest start, ISO 8601.", format="date-time"),
           "time_max": _s("Latest start, ISO 8601.", format="date-time"),
           "max_results": _n("Maximum events to return.", "integer", minimum=1, maximum=250)},
          ["time_min", "time_max"]),
    _tool("send_email",
          "Send a plain-text or HTML email from the user's account. Returns the message id.",
          {"to": {"type": "array", "items": {"type": "string", "format": "email"}, "description": "Recipients."},
           "subject": _s("Subject line."), "body": _s("Message body."),
           "html": {"type": "boolean", "description": "Send the body as HTML.", "default": False}},
          ["to", "subject", "body"]),
    _tool("search_email_inbox",
          "Search the user's mailbox with a Gmail-style query (from:, subject:, has:attachment) and return "
          "matching message summaries.",
          {"query": _s("Search query."), "limit": _n("Maximum messages to return.", "integer", minimum=1)},
          ["query"]),
    _tool("translate_text",
          "Translate text into a target language. The source language is detected when not given.",
          {"text": _s("Text to translate."), "target_language": _s("BCP 47 code of the target language, e.g. 'de'."),
           "source_language": _s("BCP 47 code of the source language.")}, ["text", "target_language"]),
    _tool("detect_language",
          "Detect the language of a piece of text and return its BCP 47 code with a confidence score.",
          {"text": _s("Text to analyze.")}, ["text"]),
    _tool("get_stock_quote",
          "Get the latest price, daily change and volume for a stock ticker on a major exchange.",
          {"symbol": _s("Ticker symbol, e.g. AAPL."), "exchange": _s("Exchange code, e.g. NASDAQ.")}, ["symbol"]),
    _tool("get_crypto_price",
          "Get the current price of a cryptocurrency in a fiat currency, with 24-hour change.",
          {"coin": _s("Coin symbol, e.g. BTC or ETH."), "currency": _s("ISO 4217 code to price in.", default="USD")},
          ["coin"]),
    _tool("create_github_issue",
          "Open a new issue in a GitHub repository with a title, body and optional labels.",
          {"repo": _s("Repository as owner/name."), "title": _s("Issue title."), "body": _s("Issue body, Markdown."),
           "labels": {"type": "array", "items": {"type": "string"}, "description": "Labels to apply."}},
          ["repo", "title"]),
    _tool("list_pull_requests",
          "List pull requests of a GitHub repository filtered by state, newest first.",
          {"repo": _s("Repository as owner/name."), "state": _s("PR state.", enum=["open", "closed", "all"])},
          ["repo"]),
    _tool("geocode_address",
          "Turn a street address into latitude and longitude coordinates.",
          {"address": _s("Free-form street address."), "country": _s("ISO 3166-1 alpha-2 country hint.")},
          ["address"]),
    _tool("get_driving_directions",
          "Compute turn-by-turn driving directions between two places, with distance and travel time.",
          {"origin": _s("Start address or 'lat,lon'."), "destination": _s("End address or 'lat,lon'."),
           "avoid_tolls": {"type": "boolean", "description": "Prefer routes without tolls."}},
          ["origin", "destination"]),
    _tool("find_nearby_restaurants",
          "Find restaurants near a location, optionally filtered by cuisine and price level, sorted by rating.",
          {"location": _s("Address or 'lat,lon'."), "cuisine": _s("Cuisine, e.g. 'thai'."),
           "radius_m": _n("Search radius in meters.", "integer", minimum=100, maximum=50000),
           "price_level": _n("1 (cheap) to 4 (expensive).", "integer", minimum=1, maximum=4)}, ["location"]),
    _tool("book_hotel_room",
          "Reserve a hotel room for given dates and guests. Returns a confirmation number.",
          {"hotel_id": _s("Hotel identifier from a previous search."),
           "check_in": _s("Arrival date, YYYY-MM-DD.", format="date"),
           "check_out": _s("Departure date, YYYY-MM-DD.", format="date"),
           "guests": _n("Number of guests.", "integer", minimum=1)}, ["hotel_id", "check_in", "check_out"]),
    _tool("search_flights",
          "Search one-way or round-trip flights between two airports and return fares sorted by price.",
          {"origin": _s("IATA code of the departure airport."), "destination": _s("IATA code of the arrival airport."),
           "depart_date": _s("Departure date, YYYY-MM-DD.", format="date"),
           "return_date": _s("Return date for a round trip, YYYY-MM-DD.", format="date"),
           "cabin": _s("Cabin class.", enum=["economy", "premium", "business", "first"])},
          ["origin", "destination", "depart_date"]),
    _tool("get_flight_status",
          "Get the live status of a flight: scheduled and estimated times, gate and delays.",
          {"flight_number": _s("Carrier code and number, e.g. UA123."), "date": _s("Flight date, YYYY-MM-DD.")},
          ["flight_number"]),
    _tool("create_todo_item",
          "Add an item to the user's to-do list with an optional due date and priority.",
          {"text": _s("What needs doing."), "due": _s("Due date, YYYY-MM-DD.", format="date"),
           "priority": _s("Priority.", enum=["low", "normal", "high"])}, ["text"]),
    _tool("list_todo_items",
          "List the user's to-do items, open ones first.",
          {"include_done": {"type": "boolean", "description": "Also list completed items."}}),
    _tool("set_reminder",
          "Schedule a push reminder for the user at a given time.",
          {"message": _s("Reminder text."), "at": _s("When to remind, ISO 8601.", format="date-time")},
          ["message", "at"]),
    _tool("get_time_in_timezone",
          "Return the current local date and time in an IANA time zone.",
          {"timezone": _s("IANA zone name, e.g. Europe/Paris.")}, ["timezone"]),
    _tool("convert_units",
          "Convert a quantity between units of length, mass, volume, temperature or speed.",
          {"value": _n("The quantity."), "from_unit": _s("Source unit, e.g. 'mi'."), "to_unit": _s("Target unit, e.g. 'km'.")},
          ["value", "from_unit", "to_unit"]),
    _tool("calculate_mortgage_payment",
          "Calculate the monthly payment, total interest and amortization summary of a fixed-rate mortgage.",
          {"principal": _n("Loan amount."), "annual_rate": _n("Annual interest rate in percent."),
           "years": _n("Term in years.", "integer", minimum=1, maximum=50)}, ["principal", "annual_rate", "years"]),
    _tool("get_nutrition_facts",
          "Look up calories and macronutrients for a food and serving size.",
          {"food": _s("Food name, e.g. 'banana'."), "serving_grams": _n("Serving size in grams.")}, ["food"]),
    _tool("search_recipes",
          "Search recipes by ingredients or dish name, with optional dietary restrictions.",
          {"query": _s("Dish or ingredients."),
           "diet": _s("Dietary restriction.", enum=["vegetarian", "vegan", "gluten-free", "keto"]),
           "max_minutes": _n("Maximum total cooking time.", "integer", minimum=1)}, ["query"]),
    _tool("get_sports_scores",
          "Get live and final scores for a league on a given day.",
          {"league": _s("League code, e.g. NBA, EPL."), "date": _s("Day, YYYY-MM-DD.", format="date")}, ["league"]),
    _tool("get_news_headlines",
          "Fetch top news headlines by country and category from major outlets.",
          {"country": _s("ISO 3166-1 alpha-2 code."),
           "category": _s("News category.", enum=["business", "science", "sports", "technology", "health"])}),
    _tool("shorten_url",
          "Create a short link that redirects to a long URL, with optional custom alias.",
          {"url": _s("The URL to shorten.", format="uri"), "alias": _s("Custom back-half for the short link.")},
          ["url"]),
    _tool("generate_qr_code",
          "Render text or a URL as a QR code PNG and return it base64-encoded.",
          {"data": _s("Text or URL to encode."), "size_px": _n("Image width in pixels.", "integer", minimum=64)},
          ["data"]),
    _tool("post_slack_message",
          "Post a message to a Slack channel as the connected bot user.",
          {"channel": _s("Channel name or id, e.g. #general."), "text": _s("Message text, Slack mrkdwn.")},
          ["channel", "text"]),
    _tool("lookup_word_definition",
          "Look up the definitions, part of speech and example sentences of an English word.",
          {"word": _s("The word to define.")}, ["word"]),
    _tool("track_package",
          "Track a parcel by carrier and tracking number and return its latest scan events.",
          {"carrier": _s("Carrier, e.g. UPS, FedEx, DHL."), "tracking_number": _s("The tracking number.")},
          ["tracking_number"]),
    _tool("resize_image",
          "Resize an image at a URL to the given width and height and return the new image URL.",
          {"url": _s("Source image URL.", format="uri"), "width": _n("Width in pixels.", "integer", minimum=1),
           "height": _n("Height in pixels.", "integer", minimum=1)}, ["url", "width"]),
)
"""The bundled distractor catalog, in its fixed order. Read it through
:func:`bundled_tools`, which hands out copies."""


def bundled_tools() -> list[dict]:
    """A fresh copy of :data:`CATALOG` (callers may mutate it freely)."""
    return [copy_json(t) for t in CATALOG]


# --------------------------------------------------------------------------- near-duplicate synthesis


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[_\-\s]+", name) if w]


def toggle_plural(name: str) -> str:
    """Flip the number of a name's last word: ``search_products`` -> ``search_product``,
    ``get_product`` -> ``get_products``, ``search`` -> ``searches``, ``get_city`` ->
    ``get_cities``."""
    lower = name.lower()
    if lower.endswith("ies") and len(name) > 3:
        return name[:-3] + "y"
    if re.search(r"(ss|sh|ch|x|z)es$", lower):
        return name[:-2]
    if lower.endswith("s") and not lower.endswith("ss"):
        return name[:-1]
    if re.search(r"[^aeiou]y$", lower):
        return name[:-1] + "ies"
    if re.search(r"(s|sh|ch|x|z)$", lower):
        return name + "es"
    return name + "s"


def _camel(name: str) -> str:
    words = _words(name)
    return words[0].lower() + "".join(w[:1].upper() + w[1:].lower() for w in words[1:]) if words else name


def _pascal(name: str) -> str:
    return "".join(w[:1].upper() + w[1:].lower() for w in _words(name)) or name


VARIANT_KINDS: tuple[tuple[str, Any], ...] = (
    ("_v2", lambda n: n + "_v2"),
    ("_internal", lambda n: n + "_internal"),
    ("plural", toggle_plural),
    ("camelCase", _camel),
    ("_legacy", lambda n: n + "_legacy"),
    ("PascalCase", _pascal),
    ("_beta", lambda n: n + "_beta"),
    ("UPPER", str.upper),
    ("_v3", lambda n: n + "_v3"),
    ("_old", lambda n: n + "_old"),
    ("_new", lambda n: n + "_new"),
    ("_batch", lambda n: n + "_batch"),
    ("_async", lambda n: n + "_async"),
    ("_raw", lambda n: n + "_raw"),
)
"""How variants are made, in the order they are drawn."""


def _humanize(name: str) -> str:
    words = _words(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name))
    text = " ".join(w.lower() for w in words)
    return (text[:1].upper() + text[1:] + ".") if text else ""


def near_duplicates(of: Sequence[str], count: int, tools: Iterable[Mapping] = (),
                    taken: Iterable[str] = ()) -> list[dict]:
    """``count`` deterministic name-collision variants of the tools named in ``of``.

    Variants are drawn kind by kind (:data:`VARIANT_KINDS`), each kind across every name
    in ``of`` in order, so ``of: [a, b]`` at count 3 gives ``a_v2, b_v2, a_internal``.
    A variant copies the description and ``inputSchema`` of the real tool of that name
    when ``tools`` has it (a look-alike should look alike); otherwise its description is
    the name in words and its schema an empty object. Variants equal to a real tool
    name, to a name in ``taken``, or to an earlier variant are skipped. Raises
    ``ValueError`` when ``of`` is empty (and count > 0) or too few variants exist.
    """
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    if count == 0:
        return []
    of = list(dict.fromkeys(of))
    if not of:
        raise ValueError("near_duplicate distractors need at least one tool name in 'of'")
    by_name = {t.get("name"): t for t in tools if isinstance(t, Mapping)}
    used = set(by_name) | set(taken) | set(of)
    out: list[dict] = []
    for _, make in VARIANT_KINDS:
        for name in of:
            variant = make(name)
            if variant in used:
                continue
            used.add(variant)
            source = by_name.get(name)
            if source is not None:
                tool = {"name": variant, "description": copy_json(source.get("description", "")),
                        "inputSchema": copy_json(source.get("inputSchema", {"type": "object", "properties": {}}))}
            else:
                tool = {"name": variant, "description": _humanize(name),
                        "inputSchema": {"type": "object", "properties": {}}}
            out.append(tool)
            if len(out) == count:
                return out
    raise ValueError(f"only {len(out)} distinct near-duplicate variants of {', '.join(of)} exist; "
                     f"{count} were asked for")


@attrs.frozen
class Injection:
    """The tool list the model is shown (real tools first, then the distractors in
    draw order) and the injected distractor names."""

    tools: tuple = attrs.field(eq=False)
    distractors: tuple[str, ...]
    source: str

    def to_dict(self) -> dict:
        return {"source": self.source, "count": len(self.distractors), "distractors": list(self.distractors)}


def inject_distractors(tools: Sequence[Mapping], count: int, source: str = "catalog",
                       of: Sequence[str] = ()) -> Injection:
    """Pad ``tools`` (the real tool list, dicts with ``name``) with ``count`` distractors
    from the bundled catalog (in catalog order) or near-duplicates of ``of``.

    Catalog entries whose name a real tool already has are skipped. ``count: 0`` is the
    no-noise baseline. Raises ``ValueError`` on an unknown source, a negative count, or
    more distractors than the source can supply.
    """
    if source not in SOURCES:
        raise ValueError(f"unknown distractor source {source!r}; expected one of {', '.join(SOURCES)}")
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count}")
    real = [copy_json(dict(t)) for t in tools]
    names = {t.get("name") for t in real}
    if source == "catalog":
        pool = [t for t in bundled_tools() if t["name"] not in names]
        if count > len(pool):
            raise ValueError(f"the bundled catalog has only {len(pool)} distractors that do not collide "
                             f"with a real tool; {count} were asked for")
        extra = pool[:count]
    else:
        extra = near_duplicates(of, count, real)
    return Injection(tools=tuple(real + extra), distractors=tuple(t["name"] for t in extra), source=source)


# --------------------------------------------------------------------------- scoring


@attrs.frozen
class RunChoices:
    """One run's distinct chosen ids, sorted into correct, distractor and out of scope."""

    correct: tuple[str, ...]
    distractor: tuple[str, ...]
    ignored: tuple[str, ...]
    success: bool

    def to_dict(self) -> dict:
        return {"chose_correct": list(self.correct), "chose_distractor": list(self.distractor),
                "ignored": list(self.ignored), "success": self.success}


def _classify_run(calls: Sequence[Any], correct: Sequence[str], distractors: Sequence[str]) -> RunChoices:
    firsts: dict[str, Any] = {}
    for call in calls:
        firsts.setdefault(call_id(call), call)
    good, bad, other = [], [], []
    for cid, call in firsts.items():
        if any(member_matches(c, call) for c in correct):
            good.append(cid)
        elif any(member_matches(d, call) for d in distractors):
            bad.append(cid)
        else:
            other.append(cid)
    if firsts:
        success = not bad and not other
    else:
        success = not correct
    return RunChoices(tuple(good), tuple(bad), tuple(other), success)


@attrs.frozen
class DistractorScore:
    """The ``distractors.*`` envelope: accuracy, the choice counts, and the certified floor."""

    accuracy: int
    chose_correct: int
    chose_distractor: int
    certified_lower: float
    successful_runs: int
    correct: tuple[str, ...]
    distractors: tuple[str, ...]
    per_run: tuple[RunChoices, ...]
    complexity: Optional[str] = None

    @property
    def chose_in_scope(self) -> int:
        return self.chose_correct + self.chose_distractor

    def to_dict(self) -> dict:
        out: dict = {
            "accuracy": self.accuracy,
            "chose_correct": self.chose_correct,
            "chose_distractor": self.chose_distractor,
            "chose_in_scope": self.chose_in_scope,
            "certified_lower": self.certified_lower,
            "runs": len(self.per_run),
            "successful_runs": self.successful_runs,
            "count": len(self.distractors),
            "correct": list(self.correct),
            "distractors": list(self.distractors),
        }
        if self.complexity is not None:
            out["complexity"] = self.complexity
        out["per_run"] = [r.to_dict() for r in self.per_run]
        return out


def score_distractors(runs: Sequence[Any], correct: Sequence[str], distractors: Sequence[str],
                      complexity: Optional[str] = None, confidence: float = 0.95) -> DistractorScore:
    """Score runs (Runs, ``{"tool_calls": ...}`` dicts or sequences of calls) against the
    declared correct ids and the injected distractor ids. See the module docstring for
    the rule. Computing ``certified_lower`` imports statsmodels, unless no run succeeded."""
    correct, distractors = tuple(correct), tuple(distractors)
    per_run = tuple(_classify_run(_calls_of(run), correct, distractors) for run in runs)
    good = sum(len(r.correct) for r in per_run)
    bad = sum(len(r.distractor) for r in per_run)
    if good + bad == 0:
        accuracy = 0 if correct else 100
    else:
        accuracy = percent(good, good + bad)
    successes = sum(r.success for r in per_run)
    lower = clopper_pearson_lower(successes, len(per_run), confidence)
    return DistractorScore(
        accuracy=accuracy,
        chose_correct=good,
        chose_distractor=bad,
        certified_lower=lower_bound_percent(lower),
        successful_runs=successes,
        correct=correct,
        distractors=distractors,
        per_run=per_run,
        complexity=complexity,
    )
