"""The ``bxb`` command line."""

# ``bxb serve`` stopped before it served: said by the entry point (``main``: a stop while the
# command's modules load) and by the command (``serve``: a stop in its start-up), so both
# import it from here, and the command does not depend on the entry point.
STOPPED = "bxb serve: stopped before it was serving (Ctrl-C or SIGTERM)"
