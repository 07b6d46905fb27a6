"""The pytest side of a suite: one File per ``*.mcptest.yml``, one Item per block."""

from __future__ import annotations

import warnings
from typing import Optional

import pytest

from .stash import CONTEXT_KEY
from ..errors import InputError
from ..gc_pause import paused_collector
from ..gates.evaluate import evaluate
from ..report.render import render_verdict
from ..gates.suite_cache import CollectedSuite, collect_suite
from ..formats.files import watch_reads
from .session_report import wants_entries
from .verdict_cache import Kept, keeps, verdict_cache
from ..suite.model import Block
from ..engine.verdict import Verdict

MARKERS_KEY = pytest.StashKey[set]()
_KIND_MARKS: dict = {}  # one `mcptest(kind=...)` mark per kind, shared by every item


class BlockFailed(Exception):
    """Raised by an item whose block failed a gate; carries the verdict to render."""

    def __init__(self, verdict: Verdict):
        super().__init__(verdict.block.name)
        self.verdict = verdict


class _GateFailed(BlockFailed):
    """A gate failed: what an ``xfail`` on a block expects."""


class _KeptFailure(_GateFailed):
    """A gate failure kept from an earlier run (``verdict_cache.py``): its failure text, no verdict."""

    def __init__(self, text: str):
        Exception.__init__(self, "a kept failure")
        self.verdict = None
        self.text = text


class _NotJudged(BlockFailed):
    """Raised when the block could not be judged at all (its cassette is missing or broken,
    its server would not start). Not a gate failure, so an ``xfail`` does not absorb it:
    an expected failure is a gate that fails, not a recording that is not there."""


def _register_tag(config: pytest.Config, name: str) -> None:
    """Register a block's tag as a marker, so ``-m`` selects by it and ``--strict-markers``
    accepts it: a tag is a label the suite declares, not a mark the user must register."""
    known = config.stash.setdefault(MARKERS_KEY, set())
    if name in known:
        return
    known.add(name)
    config.addinivalue_line("markers", f"{name}: tag (declared in a *.mcptest.yml suite)")


_CACHE_DIR_KEY = pytest.StashKey[Optional[str]]()


def _suite_cache_dir(config: pytest.Config) -> Optional[str]:
    """Where built suites are cached: a folder of pytest's own cache (``.pytest_cache``), so
    the suite cache is on exactly when pytest's is; None under ``-p no:cacheprovider`` or
    when the folder cannot be made."""
    if _CACHE_DIR_KEY not in config.stash:
        cache = getattr(config, "cache", None)
        try:
            config.stash[_CACHE_DIR_KEY] = None if cache is None else str(cache.mkdir("mcptest-suites"))
        except OSError:
            config.stash[_CACHE_DIR_KEY] = None
    return config.stash[_CACHE_DIR_KEY]


class SuiteWarning(pytest.PytestWarning):
    """Something in a suite that is legal but most likely a mistake (named at its line)."""


_PYTEST_MARKS = ("skip", "xfail", "skipif", "usefixtures", "filterwarnings")


def _unknown_mark(config: pytest.Config, heads, path: str) -> Optional[InputError]:
    """A ``marks:`` entry that is not a registered marker, as pytest judges one on a Python
    test: under ``--strict-markers`` the file's error (at its block's line), otherwise a
    warning at that line. Tags are registered by the plugin (they are labels to select by);
    a mark is the user's word, and a typo in it must not pass silently."""
    for head in heads:
        for mark in head.marks:
            if mark.name in _PYTEST_MARKS:
                continue
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", pytest.PytestUnknownMarkWarning)
                try:
                    getattr(pytest.mark, mark.name)
                except pytest.fail.Exception:
                    from ..suite.doc import near

                    known = [line.split(":")[0].split("(")[0].strip() for line in config.getini("markers")]
                    return InputError(path, f"block {head.name!r}: mark {mark.name!r} is not a registered marker, "
                                            f"and --strict-markers is on: register it (`markers` in the pytest "
                                            f"configuration) or fix its name{near(mark.name, known)}", line=head.line)
            if caught:
                warnings.warn_explicit(SuiteWarning(f"block {head.name!r}: unknown mark {mark.name!r}: is this a "
                                                    f"typo? Register it in `markers` to say it is not"),
                                       SuiteWarning, path, head.line)
    return None


class SuiteFile(pytest.File):
    """A ``*.mcptest.yml`` file. A file that cannot be read (bad YAML, a key the schema does not
    know, a block that cannot be built) is one item, :class:`BadSuiteItem`, that errors with
    the message at its line: the other files still run, and pytest's own options (such as
    ``--continue-on-collection-errors``) stay as the user set them."""

    def collect(self):
        # Parsing and item creation allocate many small objects and no cycles: the
        # collector waits until this file is built (and only that long).
        with paused_collector():
            try:
                suite = collect_suite(str(self.path), _suite_cache_dir(self.config))
            except InputError as error:
                return [BadSuiteItem.from_parent(self, name=BadSuiteItem.NAME, error=error)]
            for line, message in suite.warnings:
                warnings.warn_explicit(SuiteWarning(message), SuiteWarning, str(self.path), line)
            unknown = _unknown_mark(self.config, suite.heads, str(self.path))
            if unknown is not None:
                suite.let_go()
                return [BadSuiteItem.from_parent(self, name=BadSuiteItem.NAME, error=unknown)]
            self._collected = suite
            return [BlockItem.from_parent(self, name=head.name, head=head, suite=suite, index=index)
                    for index, head in enumerate(suite.heads)]

    def teardown(self) -> None:
        # pytest tears a file's node down when the next item is another file's (or at the
        # end): the blocks built for this file's items are let go (see CollectedSuite), and
        # the verdicts kept of them are written.
        collected = getattr(self, "_collected", None)
        if collected is not None:
            collected.let_go()
            cache = verdict_cache(self.config)
            if cache is not None:
                cache.flush(collected)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, InputError):
            return excinfo.value.render(path=self.nodeid)
        return super().repr_failure(excinfo)


class BadSuiteItem(pytest.Item):
    """A suite file that could not be read, as an item that errors at setup with the reason.

    A broken Python file stops pytest at collection; a broken suite must not stop the other
    suites and tests (a team's one typo would hide every other result), and a plugin may not
    turn on ``--continue-on-collection-errors`` for the user. So the file collects as this one
    item: it is reported as an error (exit status 1), counted, rerun by ``--lf``, and written
    to the JSON report's ``errors``. Selecting items (``-k``, ``-m``) may leave it out, as it
    leaves out any item."""

    NAME = "suite file"

    def __init__(self, *, error: InputError, **kwargs):
        super().__init__(**kwargs)
        # Raised again at setup without the frames that found it: pytest renders a setup
        # error's traceback before the report hook replaces it, and those frames' arguments
        # (an alias bomb's nodes, a whole suite's text) took minutes to repr.
        self.error = error.with_traceback(None)
        self.error.__context__ = None

    def setup(self) -> None:
        raise self.error

    def runtest(self) -> None:  # never reached: setup raises
        raise self.error

    def failure_text(self) -> str:
        """What the report shows (pytest renders a setup error itself, as a traceback: the
        plugin's report hook puts this in its place)."""
        return self.error.render(path=self.parent.nodeid)

    def reportinfo(self):
        return self.path, (self.error.line or 1) - 1, f"bad suite file: {self.path.name}"


class BlockItem(pytest.Item):
    """One block of a suite: a scenario, an agent test, ...; replayed from its cassette.

    The item keeps its block's head (kind, name, line, marks, tags, cassette), which is all
    that selecting and reporting it reads; the built block comes from its file's collected
    suite when it runs, and is let go with the file's others when the run leaves the file
    (see :class:`~pytest_mcptest.gates.suite_cache.CollectedSuite`)."""

    def __init__(self, *, head: Block, suite: CollectedSuite, index: int, **kwargs):
        super().__init__(**kwargs)
        self.head = head
        self._suite = suite
        self._index = index
        self.verdict: Verdict | None = None
        self.kept: Kept | None = None  # what an earlier run made of this block's verdict, reused
        self.reads: list | None = None  # the files its evaluation read, when its verdict may be kept
        self.add_marker(_KIND_MARKS.get(head.kind) or _KIND_MARKS.setdefault(head.kind, pytest.mark.mcptest(kind=head.kind)))
        self.extra_keyword_matches.add(head.kind)
        for mark in head.marks:  # checked against the registered markers by the file (_unknown_mark)
            kwargs = mark.kwargs
            if mark.name == "xfail" and "raises" not in kwargs:
                kwargs = {**kwargs, "raises": _GateFailed}  # see _NotJudged
            self.add_marker(getattr(pytest.mark, mark.name)(*mark.args, **kwargs))
        for tag in head.tags:
            _register_tag(self.config, tag)
            self.add_marker(tag)

    @property
    def block(self) -> Block:
        """The built block (from the file's pickle when the suite came from the cache)."""
        return self._suite.block(self._index)

    def runtest(self) -> None:
        self.kept = self.reads = None
        cache = verdict_cache(self.config) if keeps(self.head.kind) else None
        if cache is not None:
            self.kept = cache.lookup(self, wants_entries(self.config))
            if self.kept is not None:  # nothing it depends on changed: judged as before
                if self.kept.failed:
                    raise _KeptFailure(self.kept.text)
                return
        # No garbage collection while the block is judged: replaying allocates many small
        # objects, all freed by reference counting once the verdict is made, so a collection
        # in the middle would only walk them. Only this item's own code runs here (never a
        # fixture or a hook of the user's); the collector is as it was when this returns.
        with paused_collector():
            if cache is None:
                self.verdict = evaluate(self.block, self.config.stash[CONTEXT_KEY])
            else:
                with watch_reads() as self.reads:  # what the verdict depends on, kept with it
                    self.verdict = evaluate(self.block, self.config.stash[CONTEXT_KEY])
        if self.verdict.skipped:
            pytest.skip(self.verdict.skipped)
        if self.verdict.problems:
            raise _NotJudged(self.verdict)
        if not self.verdict.passed:
            raise _GateFailed(self.verdict)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, _KeptFailure):
            return excinfo.value.text
        if isinstance(excinfo.value, BlockFailed):  # a gate failed, or nothing could be judged
            return render_verdict(excinfo.value.verdict, file=self.nodeid.split("::", 1)[0])
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        # The third element heads the failure section; pytest rewrites '.' to '::' in it when
        # the node id ends with it (a Python Class.method), so it must not equal the name.
        return self.path, self.head.line - 1, f"{self.head.kind}: {self.head.name}"
