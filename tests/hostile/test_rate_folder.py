"""The folder where live recording shares its per-minute limits across workers (issue 33,
item 18): made when missing (it never was: every limited recording failed), private to
this user, and never one that another user made under the guessable name."""

from __future__ import annotations

import os
import stat

from pytest_mcptest.live.limits import RateLimiter, SharedRateLimiter, limiter_for


def test_a_missing_rate_folder_is_made_private_and_used(tmp_path):
    folder = tmp_path / "mcptest-rate-abc"
    limiter = limiter_for("openai https://a.example", 2, None, str(folder))
    assert isinstance(limiter, SharedRateLimiter)
    assert limiter.try_acquire() == 0.0 and limiter.try_acquire() == 0.0
    assert limiter.try_acquire() > 0  # the third request within the minute waits
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(limiter.path).st_mode) == 0o600


def test_a_folder_others_can_write_or_a_link_is_not_used(tmp_path):
    shared = tmp_path / "open"
    shared.mkdir()
    os.chmod(shared, 0o777)
    assert type(limiter_for("openai https://b.example", 2, None, str(shared))) is RateLimiter
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(target)
    assert type(limiter_for("openai https://c.example", 2, None, str(tmp_path / "link"))) is RateLimiter
    assert os.listdir(target) == []
