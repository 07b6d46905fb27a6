"""Making cassettes: the MCP recording proxy, the recorder behind the ``mcptest_recorder``
fixture, what each record mode means, redaction and drift.

Nothing here is imported by the engine or at plugin start-up; the ``mcp`` SDK is imported
only inside the functions that talk to a server.
"""
