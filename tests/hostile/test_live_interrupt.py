"""Ctrl-C during a live recording (issue 33, item 20): the session stops as interrupted while
the model request is still in flight, rather than waiting for its timeout and ending as
"1 failed" on a CancelledError.

Ctrl-C is SIGINT sent to the child pytest. A process started with SIGINT ignored (a background
job of a script or CI step, ``cmd &`` or ``nohup``, and every process it starts: an xdist
worker, this test's child) keeps ignoring it, as Unix asks: Python then installs no
KeyboardInterrupt handler, the event loop none that cancels, and the child waited for the
model's answer (the full suite, started in the background, timed out here at 240 s). The
child here starts as a terminal's would, SIGINT at its default, however this session started;
the test runs it both ways to hold that."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from live_fake import FakeProvider, MANIFEST, OPENAI_KEY, WEATHER_AGENT, forked_mock, reply

# The mock server through the fork server: Ctrl-C goes to the child pytest alone, never to it.
SUITE = forked_mock(WEATHER_AGENT)
# `python -m pytest` with SIGINT at its default, as a shell in a terminal starts it.
PYTEST_AS_IN_A_TERMINAL = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                           "import pytest; sys.exit(pytest.main())")


@pytest.mark.parametrize("session_sigint", ["default", "ignored"])
def test_ctrl_c_interrupts_a_live_recording_at_once(tmp_path, session_sigint):
    (tmp_path / "shop.yml").write_text(MANIFEST)
    (tmp_path / "s.mcptest.yml").write_text(SUITE)
    with FakeProvider(lambda seen: reply(seen, text="late", delay=300)) as fake:
        env = {**os.environ, "OPENAI_API_KEY": OPENAI_KEY, "OPENAI_BASE_URL": fake.url + "/v1"}
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if session_sigint == "ignored" else None
        try:  # a session started in the background: its children inherit SIGINT ignored
            proc = subprocess.Popen([sys.executable, "-c", PYTEST_AS_IN_A_TERMINAL, "-p", "no:cacheprovider",
                                     "--mcptest-record-mode=once", "s.mcptest.yml"],
                                    cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        try:
            while not fake.requests and proc.poll() is None:
                time.sleep(0.05)
            proc.send_signal(signal.SIGINT)
            out = proc.communicate(timeout=120)[0]
        finally:
            if proc.poll() is None:
                proc.kill()
        assert fake.in_flight == 1  # ended while the model's answer was still on its way
    assert "KeyboardInterrupt" in out and "1 failed" not in out and "CancelledError" not in out
    assert not (tmp_path / "weather.json").exists()


def test_ctrl_c_is_not_turned_into_a_failure_by_what_the_runs_raise_as_they_stop():
    """On Ctrl-C asyncio's runner cancels the loop's main task, and turns the CancelledError that
    comes out into KeyboardInterrupt. A run torn down by it may raise something else (a
    server's pipe closed under it): the task group then lets the cancellation go and raises
    that, and the recording had made it a LiveError: the item failed, and the session went on
    to record the next one as though Ctrl-C had not been pressed."""
    import asyncio

    import anyio

    from pytest_mcptest.live.runner import run_indexed

    async def one(i: int):
        try:
            await anyio.sleep(100)  # a model request in flight
        finally:
            if i == 0:
                raise anyio.BrokenResourceError("the server's pipe closed")

    async def main():
        task = asyncio.ensure_future(run_indexed(2, 2, one))
        await asyncio.sleep(0.05)
        task.cancel()  # what asyncio.Runner does on SIGINT
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
