"""The evaluation engine: pure, deterministic functions over plain data.

Nothing in this package knows about pytest, YAML, files, the clock or
randomness. Each gate takes plain values (runs, tool calls, rules) and returns a
frozen result whose ``to_dict()`` is the report envelope that ``expect:`` reads.

Records, by what they are for (one choice each, not one per module):
- what a suite declares (rules, oracles, specs) is an attrs class, frozen and slotted:
  made once per suite, checked by its validators, pickled by the suite cache as a call of
  the class on its ``__init__`` fields. A value worked out from the fields (a compiled
  pattern, a path's keys) is an ``init=False`` field that attrs fills while the object is
  made (``attrs.Factory(..., takes_self=True)``); nothing is set on a frozen object after
  (but ``trace.Run``, which still keeps two tuples worked out at their first use).
- what a replay makes per run (results, issues, tool calls) is a msgspec Struct, built in
  C, several per item;
- no NamedTuple: a tuple's equality and unpacking would leak into what a record means.
"""
