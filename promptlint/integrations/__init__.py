"""promptlint inside other tools: the pytest plugin (``pytest_plugin``)."""
