"""What a record mode means for one item: the single place that decides it.

:func:`decide` is a pure function of the mode and of what is on disk; the caller (the
item's evaluation, ``mcptest run --record``, the ``mcptest_recorder`` fixture) carries
the decision out. The meanings follow vcrpy's:

==============  =====================================================================
``none``        replay only; never write. A missing cassette fails and says how to
                record one.
``once``        record when the cassette is missing, else replay.
``new_episodes`` append runs until the item's ``runs:`` is reached, then replay.
``all``         record every run anew; the old cassette is replaced once the new runs
                are complete.
``rewrite``     discard the old cassette and record from nothing.
==============  =====================================================================

``runs: N`` on replay: fewer recorded runs than N fails naming both numbers; more, and the
first N are judged (the decision's ``note`` says so). An item with nothing that can
record it (a hand-made scenario cassette) is told so in one line rather than pretending.
"""

from __future__ import annotations

import enum
import shlex
from typing import NamedTuple, Optional


class RecordMode(str, enum.Enum):
    """The record modes, the one list of them (options, ini key, fixture, recorder and
    :func:`decide` all read it). A ``str`` too, so a mode compares equal to its name."""

    NONE = "none"
    ONCE = "once"
    NEW_EPISODES = "new_episodes"
    ALL = "all"
    REWRITE = "rewrite"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, value: object, where: str = "record mode") -> "RecordMode":
        """``value`` as a mode; anything else is a ``ValueError`` naming ``where`` and every mode."""
        try:
            return cls(value)
        except ValueError:
            raise ValueError(f"{where} must be one of {', '.join(m.value for m in cls)}, found {value!r}") from None


REPLAY, RECORD, APPEND, REWRITE, FAIL = "replay", "record", "append", "rewrite", "fail"


class Decision(NamedTuple):
    """What to do: ``action`` is one of replay, record, append, rewrite, fail.

    ``runs_to_record``: how many runs to record (0 on replay and fail). ``runs_to_judge``:
    how many of the recorded runs to judge (``None``: all of them). ``message``: why it
    fails (``action == "fail"``). ``note``: a line to show beside a verdict that is still
    reached (the first N of M runs judged; a mode that could not record). A named tuple:
    this module is imported at plugin start-up (for :class:`RecordMode`), where attrs is not.
    """

    action: str
    runs_to_record: int = 0
    runs_to_judge: Optional[int] = None
    message: str = ""
    note: str = ""

    @property
    def records(self) -> bool:
        return self.action in (RECORD, APPEND, REWRITE)


def how_to_record(path: str) -> str:
    """The three ways to make a cassette, as one sentence for an error message."""
    out = shlex.quote(path)
    return (f"record one with `mcptest record --out {out} -- <your server command>` (point your MCP host "
            f"at it), with the `mcptest_recorder` fixture in a pytest test, or convert a log with "
            f"`mcptest import auto LOG -o {out}`")


def decide(mode: RecordMode | str, path: str, cassette_exists: bool, runs_recorded: int = 0,
           runs_wanted: Optional[int] = None, can_record: bool = False,
           recorder: str = "a recorder", needs: Optional[str] = None, runs_broken: int = 0) -> Decision:
    """Decide what ``mode`` means for an item whose cassette is ``path``.

    ``runs_recorded``: runs the cassette holds (0 when it is missing). ``runs_wanted``:
    the item's ``runs:`` (``None`` when it has none: every recorded run is judged and one
    run is recorded). ``can_record``: whether something behind the item can record it
    (a live agent runner, the fixture); ``recorder`` names it in messages; ``needs``, when
    the item could record live but lacks keys for it, says which. ``runs_broken``: runs the
    cassette holds that ended in an infrastructure failure (``engine/infra.py``), not counted
    in ``runs_recorded``: ``once`` records them again as ``new_episodes`` does.
    """
    mode = RecordMode.parse(mode)
    if runs_wanted is not None and runs_wanted < 1:
        raise ValueError(f"runs must be at least 1, found {runs_wanted}")
    target = runs_wanted or 1
    if mode is RecordMode.ONCE and cassette_exists and runs_broken and can_record and runs_recorded < target:
        mode = RecordMode.NEW_EPISODES  # what infrastructure broke is recorded again, the rest kept
    if mode is RecordMode.NONE or (mode is RecordMode.ONCE and cassette_exists):
        return _replay(mode, path, cassette_exists, runs_recorded, runs_wanted, runs_broken)
    if mode is RecordMode.NEW_EPISODES and cassette_exists and runs_recorded >= target:
        return _replay(mode, path, cassette_exists, runs_recorded, runs_wanted, runs_broken)
    if not can_record:
        why = (f"this item records live only with {needs}" if needs
               else "no agent runner or recorder stands behind this item")
        line = f"record mode {mode}: nothing can record {path} ({why})"
        if cassette_exists:
            replay = _replay(mode, path, cassette_exists, runs_recorded, runs_wanted, runs_broken)
            if replay.action == FAIL:
                return replay._replace(message=f"{replay.message}\n{line}")
            return replay._replace(note=_join(line + "; replayed the cassette as it is", replay.note))
        return Decision(FAIL, message=f"{line}; {how_to_record(path)}")
    if mode is RecordMode.NEW_EPISODES and cassette_exists:
        return Decision(APPEND, runs_to_record=target - runs_recorded, runs_to_judge=runs_wanted,
                        note=f"record mode new_episodes: appending {target - runs_recorded} run(s) to the "
                             f"{runs_recorded} in {path} with {recorder}")
    if mode is RecordMode.REWRITE:
        return Decision(REWRITE, runs_to_record=target, runs_to_judge=runs_wanted,
                        note=f"record mode rewrite: discarding {path} and recording {target} run(s) with {recorder}")
    verb = "re-recording" if cassette_exists else "recording"
    return Decision(RECORD, runs_to_record=target, runs_to_judge=runs_wanted,
                    note=f"record mode {mode}: {verb} {target} run(s) into {path} with {recorder}")


def _replay(mode: str, path: str, exists: bool, recorded: int, wanted: Optional[int], broken: int = 0) -> Decision:
    """Replay what is there. Runs an infrastructure failure ended (``broken``) were recorded all
    the same: when they make up the runs asked for, the others are judged, as the session that
    recorded them judged them, so a replay in CI says what the recording session said."""
    if not exists:
        return Decision(FAIL, message=f"no cassette at {path} (record mode {mode} replays only); {how_to_record(path)}")
    if wanted is not None and recorded < wanted and recorded and recorded + broken >= wanted:
        return Decision(REPLAY, runs_to_judge=wanted)  # the note on the infrastructure failures says the rest
    if wanted is not None and recorded < wanted:
        held = f"{recorded} recorded run(s)" + (f" (and {broken} an infrastructure failure ended)" if broken else "")
        return Decision(FAIL, message=f"{path} holds {held} but the item asks for runs: {wanted}; "
                                      f"record the missing {wanted - recorded} with --mcptest-record-mode=new_episodes "
                                      f"or lower runs:")
    if wanted is not None and recorded > wanted:
        return Decision(REPLAY, runs_to_judge=wanted,
                        note=f"judged the first {wanted} of the {recorded} runs recorded in {path} (runs: {wanted})")
    return Decision(REPLAY, runs_to_judge=wanted) if wanted is not None else _REPLAY_ALL


_REPLAY_ALL = Decision(REPLAY)  # what nearly every replayed item is told: made once (a Decision is a tuple)


def _join(first: str, second: str) -> str:
    return f"{first}; {second}" if second else first
