"""A scenario's rubric on replay: deferred with no recorded verdict, else each statement's
outcome from the run's judgments; a rubric is a string or a list of strings."""

from __future__ import annotations

from pytest_mcptest.engine.rubric import DEFERRED_REASON, rubric_envelope, rubric_statements
from pytest_mcptest.engine.trace import Run
from pytest_mcptest.engine.world import WorldSpec, replay_world


def test_statements_of_a_string_and_of_a_list():
    assert rubric_statements("  Polite throughout. ") == ("Polite throughout.",)
    assert rubric_statements(["Polite.", " Brief. "]) == ("Polite.", "Brief.")


def test_no_verdict_for_any_statement_is_deferred_even_beside_other_judgments():
    run = Run(judgments=({"criterion": "something else", "verdict": "pass"},))
    assert rubric_envelope("Polite.", run) == {"status": "deferred", "rubric": "Polite.", "reason": DEFERRED_REASON}


def test_recorded_verdicts_are_read_back_and_a_missing_one_stays_deferred():
    run = Run(judgments=({"criterion": "Polite.", "verdict": "fail", "reason": "curt", "model": "m"},
                         {"criterion": "Polite.", "verdict": "pass"}))  # the first verdict for a text counts
    assert rubric_envelope(["Polite.", "Brief."], run) == {
        "status": "partial", "rubric": ["Polite.", "Brief."], "passed": 0, "failed": 1, "deferred": 1,
        "judgments": [{"criterion": "Polite.", "outcome": "failed", "verdict": "fail", "reason": "curt", "model": "m"},
                      {"criterion": "Brief.", "outcome": "deferred"}]}


def test_a_failed_rubric_never_fails_the_world():
    run = Run(judgments=({"criterion": "Polite.", "verdict": "fail"},))
    result = replay_world(WorldSpec(rubric="Polite."), run)
    assert result.passed and result.to_dict()["rubric"]["failed"] == 1
