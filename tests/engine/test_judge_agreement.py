"""``mcptest judge agreement``: people's verdicts against the judge's recorded ones. Kappa and
its interval are held to statsmodels' ``cohens_kappa``, computed independently."""

from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import given, settings, strategies as st
from hypothesis_budget import budget

from pytest_mcptest.cli import main
from pytest_mcptest.engine.agreement import agreement, cohens_kappa, majority


@settings(max_examples=budget(200), deadline=None)
@given(st.lists(st.integers(0, 60), min_size=4, max_size=4))
def test_kappa_and_its_interval_are_statsmodels(counts):
    from statsmodels.stats.inter_rater import cohens_kappa as reference

    table = [counts[:2], counts[2:]]
    kappa, interval = cohens_kappa(table)
    n = sum(counts)
    rows = [sum(table[0]) / n, sum(table[1]) / n] if n else [0, 0]
    cols = [(table[0][0] + table[1][0]) / n, (table[0][1] + table[1][1]) / n] if n else [0, 0]
    if n == 0 or rows[0] * cols[0] + rows[1] * cols[1] >= 1 - 1e-15:
        assert kappa is None and interval is None
        return
    with warnings.catch_warnings():  # statsmodels' z against kappa 0 divides by zero on some tables
        warnings.simplefilter("ignore", RuntimeWarning)
        ref = reference(table)
    assert kappa == pytest.approx(ref.kappa, abs=1e-12)
    if ref.kappa_low != ref.kappa_low:  # statsmodels' variance comes out negative (nan) when a rater is all one way
        assert interval[0] <= kappa <= interval[1]  # ours clips it at 0: an interval of kappa itself
        return
    assert interval[0] == pytest.approx(ref.kappa_low, abs=1e-9) and interval[1] == pytest.approx(ref.kappa_upp,
                                                                                                      abs=1e-9)


def test_agreement_flip_rate_and_position_bias():
    human = [True, True, False, False, True]
    judged = [(True,), (True, False, True), (False, False), (True,), (False, True)]
    result = agreement(human, judged, [None, None, None, (True, False), (False, False)])
    # majority: pass, pass, fail, pass, fail (a tie goes to the first verdict)
    assert result.table == ((1, 1), (1, 2)) and result.agreement == pytest.approx(3 / 5)
    assert result.flip_rate == pytest.approx(2 / 3) and result.repeated == 3
    assert result.position_bias == pytest.approx(1 / 2) and result.swapped == 2
    assert majority((False, True)) is False and majority((True, False, False)) is False


def _cassette(path, verdicts):
    runs = [{"tool_calls": [], "judgments": [{"criterion": c, "verdict": v, "reason": "", "model": "judge-1"}
                                             for c, v in said]} for said in verdicts]
    path.write_text(json.dumps({"version": 1, "runs": runs}))


def test_the_command_reads_recorded_verdicts_and_prints_the_figures(tmp_path, capsys):
    _cassette(tmp_path / "c.json", [[("polite", "pass"), ("refund", "fail")],
                                    [("polite", "pass"), ("polite", "fail"), ("refund", "pass")]])
    (tmp_path / "labels.yml").write_text(
        "- {cassette: c.json, run: 1, criterion: polite, human: pass}\n"
        "- {cassette: c.json, run: 1, criterion: refund, human: pass}\n"
        "- {cassette: c.json, run: 2, criterion: polite, human: fail}   # judged twice, once each way\n"
        "- {cassette: c.json, run: 2, criterion: refund, human: pass}\n"
        "- {criterion: inline one, human: fail, judge: fail, judge_swapped: pass}\n")
    assert main(["judge", "agreement", str(tmp_path / "labels.yml"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n"] == 5 and data["agreement"] == pytest.approx(3 / 5)
    assert set(data) >= {"n", "agreement", "kappa", "kappa_ci", "flip_rate"} and len(data["kappa_ci"]) == 2
    assert data["flip_rate"] == 1.0 and data["position_bias"] == 1.0
    assert main(["judge", "agreement", str(tmp_path / "labels.yml")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"judge agreement: 5 items ({tmp_path / 'labels.yml'})")
    assert "agreement 60.0%, Cohen's kappa" in out and "flip rate 100.0% of 1 inputs judged more than once" in out


def test_jsonl_labels_read_as_yaml_ones(tmp_path, capsys):
    (tmp_path / "l.jsonl").write_text('{"criterion": "a", "human": "pass", "judge": "pass"}\n\n'
                                      '{"criterion": "b", "human": "fail", "judge": ["fail", "fail"]}\n')
    assert main(["judge", "agreement", str(tmp_path / "l.jsonl"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n"] == 2 and data["agreement"] == 1.0 and data["kappa"] == pytest.approx(1.0)
    assert data["flip_rate"] == 0.0


@pytest.mark.parametrize("text, expected", [
    ("- {criterion: a, human: maybe, judge: pass}\n", "labels.yml:1: human: expected pass or fail, found 'maybe'"),
    ("- {criterion: a, human: pass}\n- {criterion: b, human: pass}\n",
     "labels.yml:1: give the judge's verdict: cassette: (its recorded judgments) or judge:"),
    ("- {criterion: a, human: pass, judge: pass}\n- {criterion: b, human: pass, jduge: pass}\n",
     "labels.yml:2: unknown key 'jduge'"),
    ("- {cassette: c.json, criterion: polit, human: pass}\n",
     "labels.yml:1: run 1 of c.json recorded no verdict on 'polit'; did you mean 'polite'?"),
    ("- {cassette: c.json, run: 3, criterion: polite, human: pass}\n",
     "labels.yml:1: run: expected a run of c.json (1 to 1), found 3"),
    ("criterion: a\n", "labels.yml:1: a labels file holds a list of records"),
])
def test_bad_labels_are_one_error_at_their_line(tmp_path, capsys, monkeypatch, text, expected):
    _cassette(tmp_path / "c.json", [[("polite", "pass")]])
    (tmp_path / "labels.yml").write_text(text)
    monkeypatch.chdir(tmp_path)
    assert main(["judge", "agreement", "labels.yml"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(expected) and "Traceback" not in err
