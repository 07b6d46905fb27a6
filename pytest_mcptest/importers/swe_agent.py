"""SWE-agent trajectories (``.traj``) -> cassette v1.

A ``.traj`` file is one object whose ``history`` is the OpenAI-style message list the model saw:
assistant messages carry ``tool_calls`` and each observation (``role: tool``) names the calls it
answers in ``tool_call_ids``. It is read as :mod:`.openai_chat` reads a run, with these additions:
messages marked ``is_demo`` (demonstrations put in the prompt) are skipped, and the tokens come
from ``info.model_stats`` (``tokens_sent`` as input, ``tokens_received`` as output). A list of
trajectories, or JSONL with one per line, gives one run each. Assistant messages of the older
non-function-calling format (an ``action`` text and no ``tool_calls``) yield no calls.
"""

from __future__ import annotations

from .common import Loc, Source, Tokens
from .openai_chat import import_messages

KIND = "swe-agent"
RUN_KEYS = ("history",)
_STATS = (("tokens_sent",), ("tokens_received",), ())


def import_swe_agent(path: str, text: str) -> dict:
    """Read SWE-agent trajectories and return a cassette v1 dict."""
    return import_messages(KIND, path, text, RUN_KEYS, _model_stats)


def _model_stats(src: Source, obj: dict, loc: Loc, tokens: Tokens) -> None:
    info = obj.get("info")
    if isinstance(info, dict) and info.get("model_stats") is not None:
        tokens.add(src, info["model_stats"], loc / "info" / "model_stats", *_STATS)
