"""Recording from the user's own agent loop: :class:`Recorder` wraps an ``mcp.ClientSession``.

The agent keeps its own framework and model; the wrapped session records each
``call_tool`` (name, server, arguments, result, error flag, duration, turn) and each
``list_tools`` answer (the catalog), and :meth:`Recorder.final_response` and
:meth:`Recorder.tokens` add what only the agent knows. In replay the wrapped session
answers ``call_tool`` and ``list_tools`` from the cassette and never touches the server.

What a record mode means here (decided by :func:`~pytest_mcptest.record.modes.decide`):

- ``none``: replay; a missing cassette fails, saying how to record it;
- ``once`` (the default outside pytest): record when the cassette is missing, else replay;
- ``new_episodes``: record one more run and append it until the cassette holds ``runs`` runs
  (one when ``runs`` is not given), then replay;
- ``all``: record one run and put it in place of the recorded runs (the rest of the
  cassette, other servers' catalogs included, is kept);
- ``rewrite``: record one run into a cassette started from nothing.

A recording is written by :meth:`Recorder.save` (the fixture calls it at teardown), never
by a replay.
"""

from __future__ import annotations

import difflib
import json
import os
import time
from typing import Any, Callable, Optional

from ..formats.cassette import Cassette
from ..engine.trace import Run, Tokens, ToolCall
from ..errors import RecordingError
import pytest_mcptest.record.modes as modes
import pytest_mcptest.record.store as store
from .drift import compare, prompt_sha256
from ..redact import redactor as make_redactor


class Recorder:
    """Records (or replays) the MCP tool calls of one agent run into the cassette at ``path``.

    ``mode``: a record mode (see the module). ``runs``: the runs the cassette should hold
    (``new_episodes`` stops appending there; replay fails with fewer). ``run``: which
    recorded run a replay answers from. ``redact``: regular expressions whose matches are
    written as placeholders, besides the environment's secrets (:mod:`.redact`).
    """

    def __init__(self, path: str, mode: str = "once", runs: Optional[int] = None, run: int = 0,
                 redact=(), fail: Optional[Callable[[str], Any]] = None):
        mode = modes.RecordMode.parse(mode)
        self.path = path
        self.mode = mode
        self.runs = runs
        self.run_index = run
        self.redact = tuple(redact)
        self._fail = fail
        self._decision: Optional[modes.Decision] = None
        self._recorded: Optional[Cassette] = None  # the cassette as read, for replay
        self.calls: list = []                     # [seq, ToolCall or None] in call order
        self.catalog: dict = {}
        self.turns: list = []
        self.token_counts = Tokens()  # what the agent said its model used, summed
        self.meta: dict = {}
        self.saved = False

    # -- where and what -------------------------------------------------------------------

    def use(self, path: str) -> None:
        """Record into (or replay from) ``path`` instead; only before the first ``wrap``."""
        if self._decision is not None:
            raise RecordingError("use() must come before wrap(): the cassette is already chosen")
        self.path = path

    @property
    def decision(self) -> modes.Decision:
        if self._decision is None:
            existing = None
            exists = os.path.exists(self.path)
            if exists:
                try:
                    existing = store.read_existing(self.path)
                except Exception as exc:  # noqa: BLE001 - a bad cassette is the user's to fix; say where
                    self._error(str(exc))
            recorded = len(existing.runs) if existing else 0
            self._decision = modes.decide(self.mode, self.path, exists, recorded, self.runs, can_record=True,
                                          recorder="the mcptest_recorder fixture")
            self._recorded = existing
            if self._decision.action == modes.FAIL:
                hint = "" if exists else "\nto record it from here, run with --mcptest-record-mode=once"
                self._error(self._decision.message + hint)
        return self._decision

    @property
    def replaying(self) -> bool:
        """Whether calls are answered from the cassette (so the server need not be started)."""
        return self.decision.action == modes.REPLAY

    def _error(self, message: str):
        if self._fail is not None:
            self._fail(message)
        raise RecordingError(message)

    # -- the agent's side -------------------------------------------------------------------

    def wrap(self, session, server: str):
        """The session to hand to the agent: records through ``session``, or replays.

        In replay ``session`` may be ``None`` (no server started at all).
        """
        if not isinstance(server, str) or not server:
            raise ValueError("wrap() needs server=<the server's name in the suite>")
        if self.replaying:
            return ReplayingSession(self, session, server)
        if session is None:
            self._error(f"record mode {self.mode}: recording into {self.path} needs a live session; got None")
        return RecordingSession(self, session, server)

    def describe(self, agent: Optional[str] = None, model: Optional[str] = None, prompt: Optional[str] = None,
                 system_prompt: Optional[str] = None) -> None:
        """What drift is checked against later: the agent's name, model and prompt.

        The prompt also opens the run's conversation as its user turn.
        """
        for key, value in (("agent", agent), ("model", model), ("prompt", prompt), ("system_prompt", system_prompt)):
            if value is not None:
                self.meta[key] = value
        if prompt is not None:
            self.meta["prompt_sha256"] = prompt_sha256(prompt, system_prompt)
            if not any(t.get("role") == "user" for t in self.turns):
                self.turns.insert(0, {"role": "user", "content": prompt})

    def final_response(self, text: str) -> None:
        """The agent's answer that ends a turn; tool calls after it count in the next turn."""
        self.turns.append({"role": "assistant", "content": text})

    def tokens(self, input: Optional[float] = None, output: Optional[float] = None,
               total: Optional[float] = None) -> None:
        """Token usage, added up over calls; ``total`` defaults to input + output."""
        self.token_counts = self.token_counts + Tokens(input, output, total)

    @property
    def turn(self) -> int:
        return sum(1 for t in self.turns if t.get("role") == "assistant")

    # -- writing ------------------------------------------------------------------------------

    def run(self, recorded_at: Optional[str] = None) -> Run:
        """The run recorded so far."""
        tokens = self.token_counts
        if tokens.total is None and tokens.input is not None and tokens.output is not None:
            tokens = Tokens.of(tokens.input, tokens.output)
        meta = {"recorder": "mcptest_recorder"}
        if recorded_at is not None:
            meta["recorded_at"] = recorded_at
        return Run(tool_calls=tuple([call for _, call in self.calls if call is not None]), turns=tuple(self.turns),
                   tokens=tokens or None, meta=meta)

    def save(self) -> Optional[str]:
        """Write the recorded run (a replay writes nothing). Returns the path written, or None."""
        decision = self.decision
        if not decision.records or self.saved:
            return None
        how = store.how_to_write(decision.action)
        if decision.action == modes.RECORD and self._recorded is None:
            how = store.FIRST  # another test (pytest -n 2) may have recorded the same cassette meanwhile
        stamp = store.utc_now()
        meta = {"recorder": "mcptest_recorder", "recorded_at": stamp, **self.meta}
        store.save(self.path, [self.run(stamp)], self.catalog, meta, how, self._redactor())
        self.saved = True
        return self.path

    def _redactor(self):
        """The recording's redactor, made when a run is written (a replay needs no key); a bad
        pattern or an unusable redaction key fails the recording with its reason."""
        try:
            return make_redactor(self.redact)
        except ValueError as exc:
            self._error(f"recording into {self.path}: {exc}")

    def drift(self, item_id: str) -> str:
        """What changed between the replayed cassette's ``meta`` and this test's ``describe()``
        (model, prompt), with the command that re-records; empty when nothing did or when
        nothing was replayed."""
        if self._decision is None or self._decision.action != modes.REPLAY or not self._recorded:
            return ""
        return compare(self._recorded.meta, self.path, item_id, model=self.meta.get("model"),
                       prompt=self.meta.get("prompt"), system_prompt=self.meta.get("system_prompt")).message()

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:  # an agent loop that broke off is no complete run
            self.save()
        return False

    # -- replay ---------------------------------------------------------------------------------

    def recorded_calls(self) -> list[ToolCall]:
        runs = self._recorded.runs if self._recorded is not None else ()
        if not 0 <= self.run_index < len(runs):
            self._error(f"{self.path} holds {len(runs)} run(s); run={self.run_index} is not one of them "
                        "(run= counts from 0, like a Python index)")
        return list(runs[self.run_index].tool_calls)


def _signature(name: str, args) -> str:
    return f"{name} {json.dumps(args if args is not None else {}, sort_keys=True, ensure_ascii=False)}"


class RecordingSession:
    """A ClientSession stand-in that records ``call_tool`` and ``list_tools`` as they pass.

    Everything else goes to the wrapped session untouched.
    """

    def __init__(self, recorder: Recorder, session, server: str):
        self._recorder = recorder
        self._session = session
        self._server = server

    def __getattr__(self, name):
        return getattr(self._session, name)

    async def call_tool(self, name: str, arguments: Optional[dict] = None, *args, **kwargs):
        rec = self._recorder
        asked = {"name": name, "server": self._server, "args": {} if arguments is None else arguments,
                 "turn": rec.turn}
        slot = [len(rec.calls), None]
        rec.calls.append(slot)  # the order calls were made in, whatever order they finish in
        start = time.perf_counter()
        try:
            result = await self._session.call_tool(name, arguments, *args, **kwargs)
        except Exception as exc:
            error = getattr(exc, "error", None)
            if error is not None and hasattr(error, "code"):  # a JSON-RPC error answer
                slot[1] = ToolCall(**asked, error=True, rpc_error=_dump(error),
                                   duration_ms=round((time.perf_counter() - start) * 1000, 3))
            raise
        dumped = _dump(result)
        slot[1] = ToolCall(**asked, error=bool(dumped.get("isError", False)), result=dumped,
                           duration_ms=round((time.perf_counter() - start) * 1000, 3))
        return result

    async def list_tools(self, *args, **kwargs):
        result = await self._session.list_tools(*args, **kwargs)
        params = kwargs.get("params") or (args[0] if args else None)
        tools = [_dump(t) for t in result.tools]
        entry = self._recorder.catalog.setdefault(self._server, {"tools": []})
        entry["tools"] = (entry["tools"] + tools) if getattr(params, "cursor", None) else tools
        return result


class ReplayingSession:
    """Answers ``call_tool`` and ``list_tools`` from the cassette, in recorded order.

    A call is answered by the first unused recorded call with the same name and the same
    arguments; one with no recorded answer fails and names the closest recorded call.
    """

    def __init__(self, recorder: Recorder, session, server: str):
        self._recorder = recorder
        self._session = session
        self._server = server
        self._unused = [c for c in recorder.recorded_calls() if c.server in (None, server)]

    def __getattr__(self, name):
        if self._session is None:
            raise AttributeError(f"replaying {self._recorder.path}: only call_tool and list_tools are answered "
                                 f"from the cassette, and no live session was given for {name!r}")
        return getattr(self._session, name)

    async def call_tool(self, name: str, arguments: Optional[dict] = None, *args, **kwargs):
        from mcp import types

        wanted = _signature(name, arguments)
        for i, call in enumerate(self._unused):
            if call.name == name and _signature(name, call.args) == wanted:
                del self._unused[i]
                if call.rpc_error is not None:
                    from mcp.shared.exceptions import MCPError

                    raise MCPError.from_error_data(types.ErrorData.model_validate(call.rpc_error))
                return types.CallToolResult.model_validate(call.result or {"content": []})
        self._recorder._error(self._no_match(wanted))

    def _no_match(self, wanted: str) -> str:
        rec = self._recorder
        text = f"replaying {rec.path} (record mode {rec.mode}): no recorded answer for {wanted}"
        if not self._unused:
            return text + "; every recorded call of this run has been used"
        signatures = [_signature(c.name, c.args) for c in self._unused]
        closest = max(signatures, key=lambda s: difflib.SequenceMatcher(None, wanted, s).ratio())
        return (text + f"; the closest recorded call not yet used is {closest}. Re-record with "
                       f"--mcptest-record-mode=all if the agent's calls changed on purpose")

    async def list_tools(self, *args, **kwargs):
        from mcp import types

        recorded = self._recorder._recorded
        catalog = recorded.catalog if recorded is not None else {}
        tools = (catalog.get(self._server) or {}).get("tools")
        if tools is None:
            self._recorder._error(f"replaying {self._recorder.path}: no catalog recorded for server {self._server!r}")
        return types.ListToolsResult.model_validate({"tools": tools})


def _dump(model) -> dict:
    if isinstance(model, dict):
        return model
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)
