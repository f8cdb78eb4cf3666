"""The ``bxb`` command line."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable

# ``bxb serve`` stopped before it served: said by the entry point (``main``: a stop while the
# command's modules load) and by the command (``serve``: a stop in its start-up), so both
# import it from here, and the command does not depend on the entry point.
STOPPED = "bxb serve: stopped before it was serving (Ctrl-C or SIGTERM)"


def end_if_reader_gone(error: BaseException, before: Callable[[], None] = lambda: None) -> None:
    """End as a Unix tool whose reader went away does (`git log | head`) when ``error`` is
    standard output's reader gone: quietly, killed by SIGPIPE (the shell's status 141), nothing
    more printed, after ``before`` (what the command must undo). A broken pipe elsewhere (a
    socket) is an error of its own, and returns."""
    if isinstance(error, BrokenPipeError) and _output_closed():
        before()
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing left can fail
        if hasattr(signal, "SIGPIPE"):  # Python ignores it: back to its default, and raised
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGPIPE)
        os._exit(1)  # no SIGPIPE (Windows): 1, as Python's own docs have it


def _output_closed() -> bool:
    """Whether standard output's reader closed it (True where that cannot be asked)."""
    import select

    if not hasattr(select, "poll"):
        return True
    try:
        poll = select.poll()
        poll.register(sys.stdout.fileno(), select.POLLOUT)
        return any(event & select.POLLERR for _, event in poll.poll(0))
    except (OSError, ValueError):  # no standard output at all
        return False
