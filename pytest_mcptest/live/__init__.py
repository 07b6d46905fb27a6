"""The live tier: real models driving real MCP servers, recorded into cassette runs.

Nothing here runs on replay, and nothing here is imported by the plugin at start-up;
the model SDKs (the ``live`` extra: ``pip install 'mcptest[live]'``) are imported only
when a provider is made. Entry points: :func:`runner.record_agent` (an agent item) and
:func:`conversation.record_conversation` (an MCProbe scenario).
"""
