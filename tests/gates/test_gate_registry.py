"""The registry's table of built-in gates (kind -> sections, imported on first use) says
what each gate module declares, and asking for one gate imports only that one."""

import subprocess
import sys

from pytest_mcptest import gates


def test_the_table_says_what_each_built_in_gate_declares():
    for kind, sections in gates.BUILTIN_SECTIONS.items():
        found = gates.gate(kind)
        assert found.kind == kind
        assert tuple(found.sections) == sections
        for section in sections:
            assert gates.section_gate(section) is found
    assert [g.kind for g in gates.builtin_gates()] == list(gates.BUILTIN_SECTIONS)
    # the built-in gates asked whether they claim a whole document are those that can
    assert gates.BUILTIN_DOCUMENT_GATES == tuple(g.kind for g in gates.builtin_gates() if g.claims_document is not None)


def test_reading_a_scenario_suite_loads_no_other_gate(tmp_path):
    suite = tmp_path / "s.mcptest.yml"
    suite.write_text("scenarios:\n  - name: one\n    seed: {}\n    transitions: [{tool: ping}]\n")
    code = ("import sys; from pytest_mcptest.gates.suite_build import load_suite; "
            f"load_suite({str(suite)!r}); "
            "print(sorted(m for m in sys.modules if m.startswith('pytest_mcptest.gates.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "'pytest_mcptest.gates.scenario'" in loaded
    for other in ("agent", "tool_quality", "tool_bench", "verify", "distractors"):
        assert f"'pytest_mcptest.gates.{other}'" not in loaded, loaded


def test_judging_a_scenario_loads_no_other_gate():
    code = ("import sys; from pytest_mcptest import gates; gates.gate('scenario'); "
            "print(sorted(m for m in sys.modules if m.startswith('pytest_mcptest.gates.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    for other in ("agent", "conversation", "tool_quality", "tool_bench", "verify", "distractors"):
        assert f"'pytest_mcptest.gates.{other}'" not in loaded, loaded
    assert "'pytest_mcptest.gates.scenario'" in loaded
