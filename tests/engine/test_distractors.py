"""Distractors: the bundled catalog, near-duplicate synthesis, injection, scoring."""

from __future__ import annotations

import json

import pytest

from pytest_mcptest.engine.distractors import (
    bundled_tools, inject_distractors, near_duplicates, score_distractors, toggle_plural,
)
from pytest_mcptest.engine.trace import Run, ToolCall

REAL = [
    {"name": "search_products", "description": "Search the product catalog by keyword.",
     "inputSchema": {"type": "object", "properties": {"keyword": {"type": "string"}}, "required": ["keyword"]}},
    {"name": "get_product", "description": "Get one product by id.",
     "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}},
]

CATALOG = bundled_tools()


def run(*names):
    calls = []
    for q in names:
        server, _, name = q.rpartition(".")
        calls.append(ToolCall(name, server=server or None, args={}))
    return Run(tool_calls=tuple(calls))


# --------------------------------------------------------------------------- the catalog


def test_catalog_is_large_fixed_and_well_formed():
    assert len(CATALOG) >= 30
    names = [t["name"] for t in CATALOG]
    assert len(set(names)) == len(names)
    assert names[:3] == ["convert_currency", "get_exchange_rate_history", "get_weather_forecast"]
    for tool in CATALOG:
        assert set(tool) == {"name", "description", "inputSchema"}
        assert tool["name"].isidentifier() and tool["name"].islower()
        assert len(tool["description"]) >= 30 and tool["description"].endswith(".")
        schema = tool["inputSchema"]
        assert schema["type"] == "object" and schema["properties"]
        for prop in schema["properties"].values():
            assert prop.get("type") in {"string", "number", "integer", "boolean", "array"}
        assert set(schema.get("required", [])) <= set(schema["properties"])
        json.dumps(tool)


def test_bundled_tools_are_copies():
    tools = bundled_tools()
    tools[0]["name"] = "mutated"
    tools[0]["inputSchema"]["properties"].clear()
    assert CATALOG[0]["name"] == "convert_currency" and CATALOG[0]["inputSchema"]["properties"]


# --------------------------------------------------------------------------- near duplicates


@pytest.mark.parametrize("name, toggled", [
    ("search_products", "search_product"), ("get_product", "get_products"), ("search", "searches"),
    ("get_city", "get_cities"), ("list_cities", "list_city"), ("list_addresses", "list_address"),
    ("address", "addresses"), ("get_key", "get_keys"), ("fetch_box", "fetch_boxes"),
])
def test_toggle_plural(name, toggled):
    assert toggle_plural(name) == toggled


def test_near_duplicates_spec_example_is_deterministic():
    variants = near_duplicates(["search_products", "get_product"], 3, REAL)
    assert [v["name"] for v in variants] == ["search_products_v2", "get_product_v2", "search_products_internal"]
    assert variants == near_duplicates(["search_products", "get_product"], 3, REAL)
    # a look-alike copies the real tool's description and schema
    assert variants[0]["description"] == REAL[0]["description"]
    assert variants[0]["inputSchema"] == REAL[0]["inputSchema"]
    assert variants[0]["inputSchema"] is not REAL[0]["inputSchema"]


def test_near_duplicates_cover_suffix_casing_and_plural():
    names = [v["name"] for v in near_duplicates(["search_products"], 8)]
    assert names == ["search_products_v2", "search_products_internal", "search_product", "searchProducts",
                     "search_products_legacy", "SearchProducts", "search_products_beta", "SEARCH_PRODUCTS"]


def test_near_duplicates_skip_collisions():
    tools = REAL + [{"name": "search_products_v2"}]
    names = [v["name"] for v in near_duplicates(["search_products"], 2, tools)]
    assert names == ["search_products_internal", "search_product"]
    # a single-word name has no camelCase variant distinct from itself
    names = [v["name"] for v in near_duplicates(["search"], 6)]
    assert names == ["search_v2", "search_internal", "searches", "search_legacy", "Search", "search_beta"]
    unknown = near_duplicates(["open_ticket"], 1)[0]
    assert unknown["description"] == "Open ticket." and unknown["inputSchema"] == {"type": "object", "properties": {}}


def test_near_duplicates_errors():
    assert near_duplicates([], 0) == []
    with pytest.raises(ValueError, match="at least one tool name"):
        near_duplicates([], 1)
    with pytest.raises(ValueError, match="only 14"):
        near_duplicates(["search_products"], 15)
    with pytest.raises(ValueError):
        near_duplicates(["x"], -1)


# --------------------------------------------------------------------------- injection


def test_inject_from_catalog():
    inj = inject_distractors(REAL, 4)
    assert inj.distractors == ("convert_currency", "get_exchange_rate_history", "get_weather_forecast",
                               "get_air_quality")
    assert [t["name"] for t in inj.tools][:2] == ["search_products", "get_product"]
    assert len(inj.tools) == 6
    assert inj.to_dict() == {"source": "catalog", "count": 4, "distractors": list(inj.distractors)}
    assert inject_distractors(REAL, 0).distractors == ()


def test_inject_skips_catalog_names_the_real_tools_have():
    real = REAL + [{"name": "convert_currency", "description": "ours"}]
    inj = inject_distractors(real, 2)
    assert inj.distractors == ("get_exchange_rate_history", "get_weather_forecast")
    assert [t["name"] for t in inj.tools].count("convert_currency") == 1


def test_inject_near_duplicates_and_errors():
    inj = inject_distractors(REAL, 3, "near_duplicate", of=["search_products", "get_product"])
    assert inj.distractors == ("search_products_v2", "get_product_v2", "search_products_internal")
    with pytest.raises(ValueError, match="only"):
        inject_distractors(REAL, len(CATALOG) + 1)
    with pytest.raises(ValueError, match="unknown distractor source"):
        inject_distractors(REAL, 1, "random")
    with pytest.raises(ValueError, match="at least one tool name"):
        inject_distractors(REAL, 1, "near_duplicate")


# --------------------------------------------------------------------------- scoring


CORRECT = ["catalog.search_products"]
DISTRACTORS = ["convert_currency", "get_exchange_rate_history", "get_weather_forecast", "get_air_quality"]


def test_perfect_runs():
    s = score_distractors([run("catalog.search_products")] * 4, CORRECT, DISTRACTORS, complexity="serial")
    assert (s.accuracy, s.chose_correct, s.chose_distractor, s.successful_runs) == (100, 4, 0, 4)
    assert s.certified_lower == 47.28  # 0.05 ** (1/4) = 0.4728...
    d = s.to_dict()
    assert d["distractors"] == DISTRACTORS and d["complexity"] == "serial" and d["count"] == 4
    assert d["chose_in_scope"] == 4 and d["runs"] == 4


def test_one_perfect_run_certifies_five_percent():
    s = score_distractors([run("catalog.search_products")], CORRECT, DISTRACTORS)
    assert s.certified_lower == 5.0 and s.accuracy == 100


def test_accuracy_rule():
    runs = [
        run("catalog.search_products", "catalog.convert_currency"),     # 1 correct, 1 distractor
        run("catalog.search_products", "catalog.search_products"),      # repeats count once
        run("catalog.get_air_quality", "catalog.list_orders"),          # 1 distractor, 1 ignored
    ]
    s = score_distractors(runs, CORRECT, DISTRACTORS)
    assert (s.chose_correct, s.chose_distractor) == (2, 2)
    assert s.accuracy == 50
    assert s.successful_runs == 1
    assert [r.success for r in s.per_run] == [False, True, False]
    assert s.per_run[2].ignored == ("catalog.list_orders",)
    assert s.certified_lower == pytest.approx(1.69, abs=0.01)  # CP lower for 1 of 3 at one-sided 95%


def test_accuracy_rounds_half_up():
    runs = [run("catalog.search_products"), run("catalog.search_products"), run("convert_currency")]
    assert score_distractors(runs, CORRECT, DISTRACTORS).accuracy == 67


def test_nothing_in_scope_scores_zero_except_vacuous():
    s = score_distractors([run("catalog.list_orders"), run()], CORRECT, DISTRACTORS)
    assert s.accuracy == 0 and s.successful_runs == 0 and s.certified_lower == 0.0
    vacuous = score_distractors([run()], [], DISTRACTORS)
    assert vacuous.accuracy == 100 and vacuous.successful_runs == 1
    assert score_distractors([run("convert_currency")], [], DISTRACTORS).accuracy == 0


def test_qualified_correct_ids_match_that_server_only():
    s = score_distractors([run("other.search_products")], CORRECT, DISTRACTORS)
    assert s.chose_correct == 0 and s.per_run[0].ignored == ("other.search_products",)
    bare = score_distractors([run("other.search_products")], ["search_products"], DISTRACTORS)
    assert bare.chose_correct == 1


def test_near_duplicate_choice_is_a_distractor():
    inj = inject_distractors(REAL, 3, "near_duplicate", of=["search_products", "get_product"])
    s = score_distractors([run("catalog.search_products_v2"), run("catalog.search_products")],
                          ["catalog.search_products"], inj.distractors)
    assert (s.chose_correct, s.chose_distractor, s.accuracy) == (1, 1, 50)
    assert s.to_dict()["distractors"] == ["search_products_v2", "get_product_v2", "search_products_internal"]
