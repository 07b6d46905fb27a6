"""``judge_calibration:``: items whose verdicts come from a judge fail when another judge gave
them or the calibration misses its floor; ``mcptest judge record-labels`` lets a person label
recorded criteria in the terminal (stdin fed here). The last test records a conversation live
against the loopback fake, labels it, and calibrates the replay."""

from __future__ import annotations

import io
import json

import pytest

from live_fake import MANIFEST, FakeProvider, forked_mock, live_env, play  # noqa: F401 - fixtures
from pytest_mcptest.cli import main

A, B = "a" * 64, "b" * 64  # two judges' prompt hashes
REFUND = "offers a refund"


def runs(verdicts, model="judge-a", digest=A, criterion=REFUND) -> dict:
    """A cassette of one run per verdict, each judged on ``criterion`` by ``model`` with ``digest``."""
    out = []
    for n, verdict in enumerate(verdicts, start=1):
        judgment = {"criterion": criterion, "verdict": verdict, "reason": f"reason {n}"}
        if model is not None:
            judgment["model"] = model
        if digest is not None:
            judgment["prompt_sha256"] = digest
        out.append({"tool_calls": [], "judgments": [judgment],
                    "conversation": {"turns": [{"role": "user", "content": f"Refund order {n}"},
                                               {"role": "assistant", "content": f"Answer {n}"}]}})
    return {"mcptest_cassette": 1, "runs": out}


# The labelled cassette: the judge said pass, fail, pass, fail; people said pass, fail, pass, pass:
# agreement 3/4, kappa 0.5.
LABELS = "".join(f"- {{cassette: labelled.json, run: {n}, criterion: {REFUND}, human: {h}}}\n"
                 for n, h in enumerate(["pass", "fail", "pass", "pass"], start=1))


def conversation(name: str, cassette: str, extra: str = "") -> str:
    return (f"  - name: {name}\n    description: d\n    cassette: {cassette}\n"
            f"    synthetic_user: {{persona: p, initial_query: q}}\n"
            f"    evaluation: {{correctness_criteria: [{REFUND}]}}\n{extra}")


def write(pytester, **cassettes) -> None:
    (pytester.path / "labelled.json").write_text(json.dumps(runs(["pass", "fail", "pass", "fail"])))
    (pytester.path / "labels.yml").write_text(LABELS)
    for name, data in cassettes.items():
        (pytester.path / f"{name}.json").write_text(json.dumps(data))


def run(pytester, *args):
    return pytester.runpytest("-p", "no:cacheprovider", "--mcptest-report=r.json", *args)


def report(pytester) -> dict:
    return {i["name"]: i for i in json.loads((pytester.path / "r.json").read_text())["items"]}


def test_verdicts_of_the_calibrated_judge_pass_and_the_envelope_says_how_well(pytester):
    write(pytester, same=runs(["pass", "pass"]))
    pytester.makefile(".mcptest.yml", s="judge_calibration:\n  labels: labels.yml\n  kappa: {\">=\": 0.5}\n"
                      "  agreement: {\">=\": 0.75}\n  n: {\">=\": 4}\nconversations:\n"
                      + conversation("same", "same.json"))
    run(pytester).assert_outcomes(passed=1)
    calibration = report(pytester)["same"]["envelope"]["judge_calibration"]
    assert calibration["calibrated"] == {"model": "judge-a", "prompt_sha256": A}
    assert calibration["recorded"] == [{"model": "judge-a", "prompt_sha256": A, "runs": [1, 2]}]
    assert calibration["n"] == 4 and calibration["agreement"] == 0.75 and calibration["kappa"] == pytest.approx(0.5)
    assert calibration["floors"] == {"kappa": {">=": 0.5}, "agreement": {">=": 0.75}, "n": {">=": 4}}
    assert calibration["passed"] is True and calibration["labels"] == "labels.yml"


@pytest.mark.parametrize("cassette, problem, recorded", [
    (runs(["pass"], model="judge-b"), "the verdicts come from another judge than the calibrated one",
     "judge-b (prompt aaaaaaaaaaaa)"),
    (runs(["pass"], digest=B), "the verdicts come from another judge than the calibrated one",
     "judge-a (prompt bbbbbbbbbbbb)"),
    (runs(["pass"], digest=None), "the verdicts of the run do not say which judge gave them (no model or "
     "prompt_sha256: recorded before judges were pinned; record them again)", "judge-a (no prompt_sha256)"),
])
def test_verdicts_of_another_judge_fail_in_one_line(pytester, cassette, problem, recorded):
    write(pytester, other=cassette)
    pytester.makefile(".mcptest.yml", s="judge_calibration: {labels: labels.yml, kappa: {\">=\": 0.4}}\n"
                      "conversations:\n" + conversation("other", "other.json"))
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"    judge_calibration: {problem}: recorded by {recorded} in the run; calibrated: "
                                 f"judge-a (prompt aaaaaaaaaaaa) (labels.yml, 4 labels); kappa 0.500 (floor >= 0.4: "
                                 f"held) (s.mcptest.yml:1)"])
    assert report(pytester)["other"]["envelope"]["judge_calibration"]["passed"] is False


def test_a_calibration_below_its_floor_fails_the_judged_items(pytester):
    write(pytester, same=runs(["pass", "pass", "pass"]))
    pytester.makefile(".mcptest.yml", s="judge_calibration: {labels: labels.yml, kappa: {\">=\": 0.6}, "
                      "agreement: {\">=\": 0.7}}\nconversations:\n" + conversation("same", "same.json"))
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*judge_calibration: the calibration misses its floor: recorded by judge-a (prompt "
                                 "aaaaaaaaaaaa) in every run; calibrated: judge-a (prompt aaaaaaaaaaaa) (labels.yml, "
                                 "4 labels); kappa 0.500 (floor >= 0.6: missed), agreement 75.0% (floor >= 0.7: "
                                 "held) (s.mcptest.yml:1)"])


def test_labels_that_name_no_judge_cannot_calibrate_and_say_so(pytester):
    write(pytester, same=runs(["pass"]), old=runs(["pass", "fail", "pass", "fail"], digest=None))
    (pytester.path / "inline.yml").write_text("- {criterion: x, human: pass, judge: pass}\n"
                                              "- {criterion: y, human: fail, judge: fail}\n")
    (pytester.path / "old.yml").write_text(LABELS.replace("labelled.json", "old.json"))
    pytester.makefile(".mcptest.yml", s="conversations:\n"
                      + conversation("inline", "same.json", "    config: {judge: {calibration: inline.yml}}\n")
                      + conversation("old labels", "same.json", "    config: {judge: {calibration: old.yml}}\n")
                      + conversation("missing", "same.json", "    config: {judge: {calibration: nowhere.yml}}\n"))
    result = run(pytester)
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines([
        "*judge_calibration: cannot tell whether the verdicts' judge was calibrated: the labels in inline.yml point "
        "at no recorded judgment (every record gives judge: inline), so which judge they calibrate is unknown: "
        "recorded by judge-a (prompt aaaaaaaaaaaa) in the run; calibrated: unknown (inline.yml, 2 labels); kappa "
        "1.000, agreement 100.0% (no floor)*",
        "*judge_calibration: cannot tell whether the verdicts' judge was calibrated: the judgments the labels in "
        "old.yml point at do not say which judge gave them (no model or prompt_sha256: recorded before judges were "
        "pinned), so which judge they calibrate is unknown: *",
        "*judge_calibration: cannot tell whether the verdicts' judge was calibrated: the labels file nowhere.yml "
        "cannot be read (no such file): recorded by judge-a (prompt aaaaaaaaaaaa) in the run; calibrated: unknown "
        "(nowhere.yml)*"])


def test_an_item_no_judge_decided_is_not_held_to_the_calibration(pytester):
    write(pytester, unjudged={"mcptest_cassette": 1, "runs": [{"tool_calls": []}]})
    pytester.makefile(".mcptest.yml", s="judge_calibration: {labels: labels.yml, kappa: {\">=\": 0.9}}\n"
                      "conversations:\n" + conversation("unjudged", "unjudged.json"))
    run(pytester).assert_outcomes(passed=1)
    assert "judge_calibration" not in report(pytester)["unjudged"]["envelope"]


def test_an_items_own_calibration_wins_and_scenarios_and_agents_are_held_to_it(pytester):
    write(pytester, same=runs(["pass"]), rubric=runs(["pass"], model="judge-b", criterion="is polite"),
          claims=runs(["pass"], digest=B, criterion="the total is right"))
    pytester.makefile(".mcptest.yml", s="judge_calibration: {labels: labels.yml, kappa: {\">=\": 0.9}}\n"
                      "conversations:\n"
                      + conversation("own", "same.json", "    config: {judge: {calibration: labels.yml}}\n")
                      + "scenarios:\n  - {name: rubric, cassette: rubric.json, seed: {}, rubric: is polite}\n"
                      "  - {name: no judge here, cassette: rubric.json, seed: {}}\n"
                      "agents:\n  - {name: claims, cassette: claims.json, claims: [{judge: the total is right}]}\n")
    result = run(pytester)
    result.assert_outcomes(passed=2, failed=2)
    items = report(pytester)
    assert items["own"]["outcome"] == "passed" and items["no judge here"]["outcome"] == "passed"
    assert "judge_calibration" not in items["no judge here"]["envelope"]
    result.stdout.fnmatch_lines(["*judge_calibration: the verdicts come from another judge than the calibrated one; "
                                 "and the calibration misses its floor: recorded by judge-b (prompt aaaaaaaaaaaa)*",
                                 "*judge_calibration: the verdicts come from another judge than the calibrated one; "
                                 "and the calibration misses its floor: recorded by judge-a (prompt bbbbbbbbbbbb)*"])


def test_a_floor_that_is_not_a_matcher_is_a_collection_error(pytester):
    write(pytester)
    pytester.makefile(".mcptest.yml", s="judge_calibration: {labels: labels.yml, kapa: {\">=\": 0.6}}\n"
                      "conversations:\n" + conversation("x", "labelled.json"))
    result = run(pytester)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*kapa*"])


# --------------------------------------------------------------------------- record-labels


def label(monkeypatch, capsys, answers: str, *args) -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(answers))
    code = main(["judge", "record-labels", *args])
    return code, capsys.readouterr().out


@pytest.fixture
def recorded(tmp_path, monkeypatch):
    """Two cassettes of recorded criteria, the current folder theirs."""
    (tmp_path / "one.json").write_text(json.dumps(runs(["pass", "fail", "pass"])))
    (tmp_path / "two.json").write_text(json.dumps(runs(["fail", "fail"], criterion="is polite")))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_record_labels_asks_each_criterion_and_resumes_where_it_stopped(recorded, monkeypatch, capsys):
    code, out = label(monkeypatch, capsys, "p\nmaybe\nf\nq\n", "one.json", "two.json", "--out", "labels.jsonl")
    assert code == 0
    assert "5 recorded criteria in 2 cassette(s): 0 already labelled in labels.jsonl, 5 to label" in out
    # Each criterion with what the run was asked and answered, and the judge's reason (not its verdict).
    assert "[1/5] one.json, run 1\n  asked:     Refund order 1\n  answer:    Answer 1\n  criterion: offers a " \
           "refund\n  judge:     reason 1\n" in out
    assert "expected p, f, s or q, found 'maybe'" in out
    assert "labelled 2 (1 pass, 1 fail), skipped 0, 3 not asked" in out
    lines = [json.loads(x) for x in (recorded / "labels.jsonl").read_text().splitlines()]
    assert lines == [{"cassette": "one.json", "run": 1, "criterion": REFUND, "human": "pass"},
                     {"cassette": "one.json", "run": 2, "criterion": REFUND, "human": "fail"}]
    # Again: the labelled ones are skipped; a skip records nothing; the end of the input stops it.
    code, out = label(monkeypatch, capsys, "s\np\n", "one.json", "two.json", "--out", "labels.jsonl")
    assert code == 0 and "2 already labelled in labels.jsonl, 3 to label" in out and "[1/3] one.json, run 3" in out
    assert "skipped 1, 1 not asked" in out
    assert [json.loads(x)["run"] for x in (recorded / "labels.jsonl").read_text().splitlines()] == [1, 2, 1]
    assert main(["judge", "agreement", "labels.jsonl", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 3


def test_record_labels_draws_a_seeded_sample_into_yaml_the_agreement_command_reads(recorded, monkeypatch, capsys):
    _, first = label(monkeypatch, capsys, "s\ns\ns\n", "one.json", "two.json", "--out", "a.yml", "--sample", "3",
                     "--seed", "7", "--blind")
    _, again = label(monkeypatch, capsys, "s\ns\ns\n", "one.json", "two.json", "--out", "b.yml", "--sample", "3",
                     "--seed", "7")
    heads = [line for line in first.splitlines() if line.startswith("[")]
    assert "(a sample of 3, seed 7)" in first and len(heads) == 3
    assert heads == [line for line in again.splitlines() if line.startswith("[")]  # the same draw
    assert "judge:" not in first and "judge:" in again  # --blind hides the judge's reason
    code, out = label(monkeypatch, capsys, "p\nf\np\n", "one.json", "two.json", "--out", "labels.yml",
                      "--sample", "3", "--seed", "7")
    assert code == 0 and "none left; measure the judge: mcptest judge agreement labels.yml" in out
    text = (recorded / "labels.yml").read_text()
    assert text.count("\n- {") == 2 and text.startswith("- {\"cassette\": ")
    assert main(["judge", "agreement", "labels.yml", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 3


def test_record_labels_refuses_what_it_cannot_read_or_add_to(recorded, monkeypatch, capsys):
    (recorded / "flow.yml").write_text("[{criterion: a, human: pass, judge: pass}]\n")
    assert main(["judge", "record-labels", "one.json", "--out", "flow.yml"]) == 2
    assert "flow.yml: the list is written in flow style" in capsys.readouterr().err
    assert main(["judge", "record-labels", "nothing.json", "--out", "l.yml"]) == 2
    assert "nothing.json: no such file" in capsys.readouterr().err
    (recorded / "bare.json").write_text(json.dumps({"runs": [{"tool_calls": []}]}))
    assert main(["judge", "record-labels", "bare.json", "--out", "l.yml"]) == 2
    assert "no recorded judgment in bare.json: nothing to label" in capsys.readouterr().err
    assert not (recorded / "l.yml").exists()


# --------------------------------------------------------------------------- live, end to end

LIVE = forked_mock("""\
judge_calibration: {labels: labels.yml, agreement: {">=": 0.6}}
servers:
  shop: {command: ["mcptest", "mock", "--tools-from", "shop.yml"]}
conversations:
  - &chat
    name: calibrated
    description: The agent asks for the city, then answers.
    model: anthropic:claude-haiku-4-5
    servers: [shop]
    cassette: chat.json
    config:
      judge: {model: "openai:gpt-4o-mini", extra_instructions: Mind units.}
    synthetic_user: {persona: A busy professional, initial_query: "What's the weather like?", max_turns: 4}
    evaluation:
      correctness_criteria: ["The agent asks for the location since it wasn't specified"]
      failure_criteria: [The agent assumes a location without asking]
      tool_usage:
        tool_call_criteria: [{tool: get_weather, assertions: ["Called with city='Sacramento'"]}]
  - <<: *chat
    name: asked another way
    cassette: chat2.json
    config:
      judge: {model: "openai:gpt-4o-mini", extra_instructions: Be lenient.}
""")


def test_a_live_recording_is_labelled_then_its_judge_is_calibrated_on_replay(  # noqa: F811
        pytester, live_env, monkeypatch, capsys):  # noqa: F811
    (pytester.path / "shop.yml").write_text(MANIFEST)
    pytester.makefile(".mcptest.yml", s=LIVE)
    with FakeProvider(play()) as fake:
        live_env(fake)
        recorded = pytester.runpytest("-p", "no:cacheprovider", "--mcptest-record-mode=once")
    recorded.assert_outcomes(errors=0, failed=2)  # no labels yet: which judge is calibrated cannot be told
    recorded.stdout.fnmatch_lines(["*the labels file labels.yml cannot be read (no such file)*"])
    # A person labels the first recording's three criteria: two as the judge said, one not.
    monkeypatch.setattr("sys.stdin", io.StringIO("p\np\nf\n"))
    assert main(["judge", "record-labels", "chat.json", "--out", "labels.yml"]) == 0
    assert "judge:     statement 1 checked" in capsys.readouterr().out
    replay = run(pytester)
    replay.assert_outcomes(passed=1, failed=1)
    items = report(pytester)
    cal = items["calibrated"]["envelope"]["judge_calibration"]
    assert cal["passed"] and cal["agreement"] == pytest.approx(2 / 3) and cal["n"] == 3
    digest = cal["calibrated"]["prompt_sha256"]
    assert cal["calibrated"]["model"] == "gpt-4o-mini-2024-07-18" and len(digest) == 64
    # The same judge model asked with other instructions is another judge.
    other = items["asked another way"]["envelope"]["judge_calibration"]["recorded"][0]
    assert other["model"] == cal["calibrated"]["model"] and other["prompt_sha256"] != digest
    replay.stdout.fnmatch_lines([f"*judge_calibration: the verdicts come from another judge than the calibrated one: "
                                 f"recorded by gpt-4o-mini-2024-07-18 (prompt {other['prompt_sha256'][:12]}) in the "
                                 f"run; calibrated: gpt-4o-mini-2024-07-18 (prompt {digest[:12]}) (labels.yml, 3 "
                                 f"labels); agreement 66.7% (floor >= 0.6: held)*"])
