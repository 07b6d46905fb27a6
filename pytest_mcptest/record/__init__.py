"""Making cassettes: the MCP recording proxy, the recorder behind the ``mcptest_recorder``
fixture (the fixture itself is the plugin's: ``plugin/recorder_fixture.py``), what each record
mode means, redaction and drift.

The engine imports nothing from here. The plugin imports at start-up only what it needs
then: the record modes (``modes.py``, standard library only); the ``mcp`` SDK is imported
only inside the functions that talk to a server.
"""
