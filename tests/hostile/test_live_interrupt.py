"""Ctrl-C during a live recording (issue 33, item 20): the session stops as interrupted while
the model request is still in flight, rather than waiting for its timeout and ending as
"1 failed" on a CancelledError."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from live_fake import FakeProvider, MANIFEST, OPENAI_KEY, WEATHER_AGENT, reply

SUITE = WEATHER_AGENT


def test_ctrl_c_interrupts_a_live_recording_at_once(tmp_path):
    (tmp_path / "shop.yml").write_text(MANIFEST)
    (tmp_path / "s.mcptest.yml").write_text(SUITE)
    with FakeProvider(lambda seen: reply(seen, text="late", delay=300)) as fake:
        env = {**os.environ, "OPENAI_API_KEY": OPENAI_KEY, "OPENAI_BASE_URL": fake.url + "/v1"}
        proc = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                                 "--mcptest-record-mode=once", "s.mcptest.yml"],
                                cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            while not fake.requests and proc.poll() is None:
                time.sleep(0.05)
            proc.send_signal(signal.SIGINT)
            out = proc.communicate(timeout=240)[0]
        finally:
            if proc.poll() is None:
                proc.kill()
        assert fake.in_flight == 1  # ended while the model's answer was still on its way
    assert "KeyboardInterrupt" in out and "1 failed" not in out and "CancelledError" not in out
    assert not (tmp_path / "weather.json").exists()
