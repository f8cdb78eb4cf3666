"""The ``bxb`` command line."""
