"""Every cassette and report pins its basis: what a figure depends on besides the agent. A live
recording against the loopback fake writes it into each run's meta, the JSON report gathers it
per item and over the report, and a comparison lists each difference first and refuses a
verdict across a different grading basis unless told otherwise."""

from __future__ import annotations

import json
from importlib import metadata

import pytest

from live_fake import ANTHROPIC_MODEL, MANIFEST, OPENAI_MODEL, FakeProvider, forked_mock, live_env, play  # noqa: F401
from pytest_mcptest import __version__
from pytest_mcptest.cli import main
from pytest_mcptest.engine.basis import differences, gather, refusal, run_basis, series
from pytest_mcptest.engine.trace import Run
from pytest_mcptest.live.judge import prompt_sha256
from pytest_mcptest.report.document import build_report, load_report

SUITE = forked_mock("""\
servers:
  shop: {command: ["mcptest", "mock", "--tools-from", "shop.yml"]}
conversations:
  - name: weather
    description: The agent asks for the city, then answers.
    model: anthropic:claude-haiku-4-5
    servers: [shop]
    cassette: chat.json
    config:
      judge: {model: "openai:gpt-4o-mini", extra_instructions: Mind units.}
      synthetic_user: {model: "openai:gpt-4o-mini", temperature: 0.2}
    synthetic_user: {persona: A busy professional, initial_query: "What's the weather like?", max_turns: 4}
    evaluation:
      correctness_criteria: ["The agent asks for the location since it wasn't specified"]
""")


def test_a_live_recordings_basis_reaches_the_report(pytester, live_env):  # noqa: F811
    (pytester.path / "shop.yml").write_text(MANIFEST)
    pytester.makefile(".mcptest.yml", s=SUITE)
    with FakeProvider(play()) as fake:
        live_env(fake)
        pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=once").assert_outcomes(passed=1)
    pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=r.json").assert_outcomes(passed=1)
    report = load_report(str(pytester.path / "r.json"))  # the report schema accepts the new keys
    basis = report["items"][0]["basis"]
    run = json.loads((pytester.path / "chat.json").read_text())["runs"][0]
    servers = run["meta"]["basis"]["servers"]["shop"]
    assert basis == {
        "agent.answered": ANTHROPIC_MODEL, "agent.model": "anthropic:claude-haiku-4-5", "agent.provider": "anthropic",
        "agent_max_steps": 10, "max_turns": 4, "mcptest": __version__,
        "judge.answered": OPENAI_MODEL, "judge.model": "openai:gpt-4o-mini", "judge.provider": "openai",
        "judge.prompt_sha256": prompt_sha256("Mind units."),
        "synthetic_user.answered": OPENAI_MODEL, "synthetic_user.model": "openai:gpt-4o-mini",
        "synthetic_user.provider": "openai", "synthetic_user.temperature": 0.2,
        "synthetic_user.prompt_sha256": run["meta"]["synthetic_user"]["prompt_sha256"],
        "sdk.anthropic": metadata.version("anthropic"), "sdk.mcp": metadata.version("mcp"),
        "sdk.openai": metadata.version("openai"),
        "servers.shop.name": "shop", "servers.shop.version": servers["version"],
        "servers.shop.protocol_version": servers["protocol_version"],
        "grading.mcptest": __version__, "grading.require_judgments": False}
    assert report["basis"] == {key: [value] for key, value in basis.items()}


def test_runs_that_disagree_and_cassettes_from_before_bases_are_said_as_they_are():
    old = run_basis({"model": "openai:gpt-4o", "judge_model": "openai:gpt-4o"},
                    {"model": "gpt-4o-2024-08-06", "judge": {"model": "gpt-4o-2024-08-06"}},
                    [{"criterion": "c", "verdict": "pass", "model": "gpt-4o-2024-11-20"}])
    assert old == {"agent.model": "openai:gpt-4o", "agent.provider": "openai", "agent.answered": "gpt-4o-2024-08-06",
                   "judge.model": "openai:gpt-4o", "judge.answered": "gpt-4o-2024-11-20"}  # the judgment says last
    new = run_basis({"model": "openai:gpt-4o"}, {"model": "gpt-4o-2024-11-20", "basis": {"max_turns": 5}}, [])
    assert gather([old, new]) == {
        "agent.answered": ["gpt-4o-2024-08-06", "gpt-4o-2024-11-20"], "agent.model": "openai:gpt-4o",
        "agent.provider": "openai", "judge.answered": [None, "gpt-4o-2024-11-20"],
        "judge.model": [None, "openai:gpt-4o"], "max_turns": [None, 5]}
    assert run_basis(None, None, [Run(()).judgments]) == {}
    assert [series(v) for v in ("0.1.0", "0.1.7", "0.2.0", "1.4.2", "2.0", None)] == \
        ["0.1", "0.1", "0.2", "1", "2", None]


def item(name: str, passed: list, **basis) -> dict:
    """A report item of several runs with a basis."""
    return {"id": f"s.mcptest.yml::{name}", "name": name, "kind": "conversation", "outcome": "passed",
            "envelope": {}, "runs": [{"name": f"{name} #{i}", "passed": p} for i, p in enumerate(passed, 1)],
            "basis": {"grading.mcptest": "0.1.0", "grading.require_judgments": False, "agent.model": "openai:gpt-4o",
                      "judge.answered": "judge-a", "judge.prompt_sha256": "a" * 64, **basis}}


def write(tmp_path, name: str, *items) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(build_report(list(items), {})))
    return str(path)


BEFORE = [True] * 10
AFTER = [True] * 2 + [False] * 8  # a real drop: significant on 10 paired runs


def test_another_agent_model_is_listed_first_and_the_verdict_is_drawn(tmp_path, capsys):
    base = write(tmp_path, "a.json", item("x", BEFORE), item("y", BEFORE))
    now = write(tmp_path, "b.json", item("x", AFTER, **{"agent.model": "openai:gpt-4o-mini"}), item("y", BEFORE))
    assert main(["report", now, "--compare", base, "--fail-on", "regression"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["basis: 1 difference (baseline -> this report)",
                       "  agent.model: openai:gpt-4o -> openai:gpt-4o-mini (1 item: s.mcptest.yml::x)"]
    assert out[2].startswith("verdict: REGRESSED")


@pytest.mark.parametrize("changed, key", [
    ({"judge.answered": "judge-b"}, "judge.answered"),
    ({"judge.prompt_sha256": "b" * 64}, "judge.prompt_sha256"),
    ({"grading.require_judgments": True}, "grading.require_judgments"),
    ({"grading.mcptest": "1.0.0"}, "grading.mcptest"),
])
def test_a_different_grading_basis_refuses_the_verdict(tmp_path, capsys, changed, key):
    base = write(tmp_path, "a.json", item("x", BEFORE), item("y", BEFORE))
    now = write(tmp_path, "b.json", item("x", AFTER, **changed), item("y", BEFORE, **changed))
    assert main(["report", now, "--compare", base, "--fail-on", "regression"]) == 2
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    assert out[0] == "basis: 1 difference (baseline -> this report)"
    assert out[1].startswith(f"  GRADING {key}: ") and out[1].endswith("(2 items: s.mcptest.yml::x, s.mcptest.yml::y)")
    assert out[2].startswith(f"no verdict: the two reports were graded on a different basis ({key})")
    assert len(out) == 3 and "verdict: REGRESSED" not in captured.out
    assert captured.err == "mcptest report: no verdict: the grading basis differs (see above)\n"
    # As JSON: the basis says why, and there is no verdict.
    assert main(["report", now, "--compare", base, "--json"]) == 2
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert "significance" not in data and data["basis"]["refused"] is True
    assert data["basis"]["differences"][0]["key"] == key and data["basis"]["differences"][0]["refuses"] is True
    assert captured.err.startswith(f"mcptest report: no verdict: the two reports were graded on a different basis "
                                   f"({key})")
    # Asked for anyway, the verdict is drawn, after the basis.
    assert main(["report", now, "--compare", base, "--allow-basis-change", "--fail-on", "regression"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[2] == "the grading basis differs; compared anyway (--allow-basis-change)"
    assert out[3].startswith("verdict: REGRESSED")


def test_what_does_not_show_a_grading_change_is_listed_and_allowed(tmp_path, capsys):
    base = write(tmp_path, "a.json", item("x", BEFORE, **{"grading.mcptest": "0.1.0"}))
    patch = write(tmp_path, "b.json", item("x", BEFORE, **{"grading.mcptest": "0.1.3"}))
    assert main(["report", patch, "--compare", base]) == 0  # a patch release of the same series
    assert "  grading.mcptest: 0.1.0 -> 0.1.3 (1 item: s.mcptest.yml::x)" in capsys.readouterr().out
    unknown = dict(item("x", BEFORE))
    del unknown["basis"]["judge.prompt_sha256"]  # a cassette recorded before judges were pinned
    assert main(["report", patch, "--compare", write(tmp_path, "c.json", unknown)]) == 0
    assert "judge.prompt_sha256: not recorded -> aaaa" in capsys.readouterr().out
    old = {k: v for k, v in item("x", BEFORE).items() if k != "basis"}  # a report from before bases
    assert main(["report", patch, "--compare", write(tmp_path, "d.json", old)]) == 0
    assert capsys.readouterr().out.startswith("basis: not checked: the baseline report pins no basis")
    compared = differences([old], [old])
    assert compared == {"differences": [], "unpinned": ["baseline", "current"]} and refusal(compared) is None


def test_markdown_and_html_say_there_is_no_verdict(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    base = write(tmp_path, "a.json", item("x", BEFORE))
    now = write(tmp_path, "b.json", item("x", AFTER, **{"judge.answered": "judge-b"}))
    md, page = tmp_path / "s.md", tmp_path / "r.html"
    assert main(["report", now, "--compare", base, "--markdown", str(md), "--html", str(page)]) == 2
    text = md.read_text()
    assert "basis: 1 difference (baseline -\\> this report)" in text and "no verdict: the two reports" in text
    assert "**Verdict" not in text
    html = page.read_text()
    assert "GRADING judge.answered: judge-a -&gt; judge-b" in html and 'data-verdict=' not in html


def conversation_cassette(path, judge: str) -> None:
    runs = [{"tool_calls": [], "judgments": [{"criterion": "answers", "verdict": v, "model": judge,
                                              "prompt_sha256": "a" * 64}]} for v in ["pass"] * 6]
    path.write_text(json.dumps({"meta": {"model": "openai:gpt-4o"}, "runs": runs}))


def test_pytest_compare_refuses_a_baseline_graded_by_another_judge(pytester):
    pytester.makefile(".mcptest.yml", s="conversations:\n  - name: c\n    description: d\n    cassette: c.json\n"
                      "    synthetic_user: {persona: p, initial_query: q}\n"
                      "    evaluation: {correctness_criteria: [answers]}\n")
    conversation_cassette(pytester.path / "c.json", "judge-a")
    pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=base.json").assert_outcomes(passed=1)
    conversation_cassette(pytester.path / "c.json", "judge-b")
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-compare=base.json")
    assert result.ret == 2
    result.stdout.fnmatch_lines(["*mcptest: compared with base.json*", "basis: 1 difference (baseline -> this report)",
                                 "  GRADING judge.answered: judge-a -> judge-b (1 item: s.mcptest.yml::c)",
                                 "no verdict: the two reports were graded on a different basis (judge.answered)*"])
    result = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-compare=base.json",
                                "--mcptest-allow-basis-change")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["the grading basis differs; compared anyway (--allow-basis-change)",
                                 "verdict: WITHIN NOISE*"])
