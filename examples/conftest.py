"""The marks these example suites put on their blocks (``marks: [slow]``), registered as for any
pytest test, so that ``--strict-markers`` accepts them and would catch a typo such as ``slwo``."""


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a block that takes longer than the rest (deselect with -m 'not slow')")
