"""Tool definitions and a tool-bench spec that several test modules use (a module of
its own: tests do not import each other)."""

GOOD_TOOL = {
    "name": "get_weather",
    "description": "Get the current weather forecast for a city. Returns JSON with temperature and conditions.",
    "inputSchema": {"type": "object", "additionalProperties": False, "required": ["city"],
                    "properties": {"city": {"type": "string", "maxLength": 80, "description": "City name, e.g. Paris"}},
                    "examples": [{"city": "Paris"}]},
    "annotations": {"readOnlyHint": True},
}

BAD_TOOL = {"name": "x", "description": "x", "inputSchema": {"type": "object", "properties": {"q": {}}}}

BENCH = """\
catalog:
  tools:
    - {name: lookup_a, description: Return the current weather forecast for a city as JSON.}
    - {name: lookup_b, description: Convert an amount of money between two currencies.}
intents:
  - {query: what is the weather forecast in Paris, gold: [lookup_a]}
  - {query: convert 10 euros to dollars, gold: [lookup_b]}
mutations:
  - {tool: lookup_a, kind: blank}
"""
