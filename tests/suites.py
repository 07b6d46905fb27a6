"""Small suites and cassettes of our own making, shared by the plugin's tests."""

from __future__ import annotations

import json

WIDGET_SUITE = """\
scenarios:
  - name: restock the widget shelf
    cassette: cassettes/restock.json
    seed:
      inventory:
        widgets: 3
      shelf_full: false
    transitions:
      - tool: add_widget
        effect:
          inventory.widgets: { inc: 1 }
      - tool: remove_widget
        when:
          inventory.widgets: { min: 1 }
        effect:
          inventory.widgets: { dec: 1 }
      - tool: mark_full
        effect:
          shelf_full: true
    forbidden:
      - tool: drop_inventory
        reason: destructive bulk delete is never allowed
    golden:
      calls: [add_widget, add_widget, mark_full]
    expect_state:
      inventory.widgets: 5
      shelf_full: true
    expect:
      - target: invalid_actions
        matcher: { exact: 0 }
      - target: golden.matched
        matcher: { exact: true }
"""


# The widget world with results, as a scenario serves it (its seed and transitions, to go
# under a scenario's name and keys).
SERVED_WIDGETS = """\
    seed: {inventory: {widgets: 3}, shelf_full: false}
    transitions:
      - {tool: add_widget, effect: {inventory.widgets: {inc: 1}}, result: {from_state: inventory}}
      - {tool: mark_full, effect: {shelf_full: true}}
      - {tool: check_stock, result: {widgets: {from_state: inventory.widgets}, full: {from_state: shelf_full}}}
"""


def cassette(*names, **extra) -> str:
    """A one-run cassette v1 calling ``names`` in order."""
    calls = [{"name": n, "args": {}} for n in names]
    return json.dumps({"mcptest_cassette": 1, "runs": [dict({"tool_calls": calls}, **extra)]})


GOOD_RUN = cassette("add_widget", "add_widget", "mark_full")
BAD_RUN = cassette("add_widget", "remove_widget", "drop_inventory", "teleport")


def simple_scenario(name: str, cassette_path: str | None = None, extra: str = "") -> str:
    """A scenario whose only transition is ``ping`` (one call passes)."""
    line = f"    cassette: {cassette_path}\n" if cassette_path else ""
    return (f"  - name: {name}\n{line}"
            "    seed: {count: 0}\n"
            "    transitions:\n"
            "      - tool: ping\n"
            "        effect: {count: {inc: 1}}\n"
            "    expect_state: {count: 1}\n" + extra)


PING_RUN = cassette("ping")
