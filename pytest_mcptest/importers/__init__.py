"""Turn logs people already have into cassettes: ``mcptest import KIND FILE -o CASSETTE``.

Each importer is a function ``(path, text) -> Cassette`` returning the runs it read and
raising :class:`~pytest_mcptest.errors.InputError` (with the line, or the JSON pointer, of
the bad part) for input it cannot read. Modules are imported only when asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from ..formats.cassette import Cassette

# kind on the command line -> (module, function)
IMPORTERS: dict[str, tuple[str, str]] = {
    "openai-chat": ("openai_chat", "import_openai_chat"),
    "anthropic": ("anthropic", "import_anthropic"),
    "otel": ("otel", "import_otel"),
    "claude-code": ("claude_code", "import_claude_code"),
    "swe-agent": ("swe_agent", "import_swe_agent"),
    "mcp-cassette": ("mcp_jsonrpc", "import_mcp_cassette"),
    "mcp-recorder": ("mcp_jsonrpc", "import_mcp_recorder"),
    "openai-responses": ("openai_responses", "import_openai_responses"),
    "openai-agents": ("openai_agents", "import_openai_agents"),
    "inspect-ai": ("inspect_ai", "import_inspect_ai"),
}


def get_importer(kind: str) -> Callable[[str, str], dict]:
    """The importer for ``kind`` (one of :data:`IMPORTERS`)."""
    module, function = IMPORTERS[kind]
    return getattr(importlib.import_module(f"{__name__}.{module}"), function)


def read_log(path: str) -> str:
    """The text of the log at ``path``, read as every user file is; a zip (an inspect_ai ``.eval``
    log) is turned into the JSON form its importer reads."""
    from ..formats.files import decode_text, read_bytes

    data = read_bytes(path)
    if bytes(data[:4]) == b"PK\x03\x04":
        from .inspect_ai import eval_zip_text

        return eval_zip_text(path, bytes(data))
    return decode_text(bytes(data), path)


def import_text(kind: str, path: str, text: str) -> Cassette:
    """Import ``text`` (read from ``path``) as a ``kind`` log; return the cassette."""
    return get_importer(kind)(path, text)
