"""Writing the user's suites: ``mcptest init`` (a starting suite from a cassette) and
``--mcptest-update-expect`` (a failing item's expectations rewritten from its recording),
both on round-trip YAML so that the user's comments and layout survive.
"""
