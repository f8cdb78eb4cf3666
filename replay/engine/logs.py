"""structlog set-up: every rule step is logged as it is adjudicated, to stderr, as readable
console lines by default or JSON lines (for shipping and searching a tournament server's logs).

structlog is imported only when something is about to be logged (``logger``), not when the
command line says how to log (``configure``): importing it costs about 40 ms (its console
renderer imports Rich's tracebacks, its standard-library bridge asyncio), a sixth of a command
such as ``bxb at`` that never logs. ``configure`` therefore keeps the settings and ``logger``
applies them before handing out the first logger, so structlog is never used with its
unconfigured defaults (which print every level to standard output) once ``configure`` ran."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from structlog.typing import FilteringBoundLogger

# The settings ``configure`` was given and structlog has not taken yet: (json, level).
_pending: tuple[bool, str] | None = None
# The logger class ``configure`` gave structlog when its level drops the rule steps (info):
# while structlog still makes loggers of that class, ``steps`` answers None at once.
_quiet: type | None = None


def configure(*, json: bool = False, level: str = "warning") -> None:
    global _pending
    _pending = (json, level)
    if "structlog" in sys.modules:  # in use already (a long-lived process, tests): now
        _apply_pending()


def logger(name: str) -> FilteringBoundLogger:
    """The logger called ``name``, structlog imported and configured as ``configure`` said."""
    import structlog

    _apply_pending()
    found: FilteringBoundLogger = structlog.get_logger(name)
    return found


def steps(name: str) -> FilteringBoundLogger | None:
    """The logger of rule steps (each logged at info), or None when info is not logged: a
    server run at ``--log-level warning`` then makes no fields for the steps it would drop,
    a dozen a command (issue 25). Asked once a command: at a level that drops the steps it
    makes no logger to ask (structlog makes one, with its stderr writer, at each ``bind``),
    unless structlog was configured since with another logger class."""
    import logging

    import structlog

    _apply_pending()
    if _quiet is not None and structlog.get_config()["wrapper_class"] is _quiet:
        return None
    found = logger(name).bind()
    enabled = getattr(found, "is_enabled_for", None)
    return found if enabled is None or enabled(logging.INFO) else None


def _apply_pending() -> None:
    global _pending, _quiet
    if _pending is None:
        return
    import logging

    import structlog

    json, level = _pending
    _pending = None
    processors: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
    ]
    if json:
        processors += [
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,  # a traceback as text (else its repr alone)
            structlog.processors.JSONRenderer(sort_keys=True),
        ]
    else:
        # Colour on a terminal only, and never when NO_COLOR is set (https://no-color.org).
        colors = sys.stderr.isatty() and not os.environ.get("NO_COLOR")
        # a traceback without each frame's local values: a server's hold its tokens and keys
        plain = structlog.dev.RichTracebackFormatter(show_locals=False)
        processors += [structlog.dev.ConsoleRenderer(colors=colors, exception_formatter=plain)]
    number = getattr(logging, level.upper())
    wrapper = structlog.make_filtering_bound_logger(number)
    # the class drops every level below ``number``, whatever the instance (structlog's own)
    _quiet = wrapper if number > logging.INFO else None
    structlog.configure(
        processors=processors,
        wrapper_class=wrapper,
        # Look stderr up when a logger is made, not now: it may be replaced (tests, embedding).
        logger_factory=lambda *args: structlog.PrintLogger(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
