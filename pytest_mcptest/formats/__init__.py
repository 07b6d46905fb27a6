"""The files mcptest reads and writes, each format with one typed model, one reader and one writer.

``files`` is how every user file is read (bounded, strict JSON) and written (atomically);
``cassette`` is the recorded runs (``kept_parses`` keeps what it decoded between sessions),
``lockfile`` a catalog's pinned tools, ``json_text`` the indented JSON text every writer
emits. Nothing here knows pytest, a gate or a report.
"""
