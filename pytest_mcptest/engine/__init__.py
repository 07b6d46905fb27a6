"""The evaluation engine: pure, deterministic functions over plain data.

Nothing in this package knows about pytest, YAML, files, the clock or
randomness. Each gate takes plain values (runs, tool calls, rules) and returns a
frozen result whose ``to_dict()`` is the report envelope that ``expect:`` reads.
"""
