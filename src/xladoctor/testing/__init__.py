"""xladoctor inside a test suite: the pytest plugin."""
