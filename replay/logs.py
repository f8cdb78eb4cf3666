"""structlog set-up: every rule step is logged as it is adjudicated, to stderr, as readable
console lines by default or JSON lines (for shipping and searching a tournament server's logs)."""

from __future__ import annotations

import logging
import os
import sys

import structlog


def configure(*, json: bool = False, level: str = "warning") -> None:
    processors: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
    ]
    if json:
        processors += [
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.JSONRenderer(sort_keys=True),
        ]
    else:
        # Colour on a terminal only, and never when NO_COLOR is set (https://no-color.org).
        colors = sys.stderr.isatty() and not os.environ.get("NO_COLOR")
        processors += [structlog.dev.ConsoleRenderer(colors=colors)]
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        # Look stderr up when a logger is made, not now: it may be replaced (tests, embedding).
        logger_factory=lambda *args: structlog.PrintLogger(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
