"""Reports with names and numbers that once crashed ``mcptest report`` (issue 33, items 14
and 15): ``$...$`` in a name is text, never mathtext; an integer no float holds is refused
in one line."""

from __future__ import annotations

import json

import pytest

from pytest_mcptest.cli import main

pytest.importorskip("matplotlib")


def _report(name: str, envelope: dict) -> dict:
    return {"mcptest_report": 1, "items": [
        {"id": f"s.mcptest.yml::{name}", "name": name, "kind": "agent", "outcome": "passed", "envelope": envelope},
        {"id": f"s.mcptest.yml::{name} 2", "name": name + " 2", "kind": "agent", "outcome": "passed",
         "envelope": envelope}]}


ENVELOPE = {"tool_selection": {"pass_hat_k": {"1": 1.0, "2": 0.5, "3": 0.25}, "pass_k": 0.9},
            "stability": {"pass_hat_k": {"1": 100, "2": 50}}}


def test_dollar_signs_in_a_name_are_drawn_as_text(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(_report("price $\\frac{a$ and $x_1$", ENVELOPE)))
    assert main(["report", str(path), "--html", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert "Traceback" not in capsys.readouterr().err
    assert "<svg" in page and "x_1$" in page  # the label as written, not typeset


@pytest.mark.parametrize("args", [["--html", "out.html"], ["--compare", "SELF"]])
def test_an_integer_of_400_digits_is_refused_in_one_line(tmp_path, capsys, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(_report("a", {"cost_micros": 10 ** 400, **ENVELOPE})))
    args = [str(path) if a == "SELF" else a for a in args]
    assert main(["report", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert "(at /items/0/envelope/cost_micros): not an mcptest report: a number of 401 digits" in err
    assert "Traceback" not in err and "OverflowError" not in err
