"""The rule steps' logger (replay/engine/logs.py): at a level that drops them the adjudication
asks structlog for nothing (issue 25), and that answer never outlives the configuration it was
made for."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
import structlog

from blowbyblow.replay.engine import logs


@pytest.fixture
def saved_logs() -> Iterator[None]:
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    made: list[str] = []
    get_logger = structlog.get_logger

    def counted(*args: Any, **kwargs: Any) -> Any:
        made.append(str(args))
        return get_logger(*args, **kwargs)

    monkeypatch.setattr(structlog, "get_logger", counted)
    return made


@pytest.mark.usefixtures("saved_logs")
def test_at_warning_the_steps_make_no_logger(monkeypatch: pytest.MonkeyPatch) -> None:
    logs.configure(level="warning")
    made = _counting(monkeypatch)
    assert logs.steps("blowbyblow.engine") is None
    assert made == []


@pytest.mark.usefixtures("saved_logs")
def test_the_steps_are_logged_again_once_the_level_lets_them_through() -> None:
    logs.configure(level="warning")
    assert logs.steps("blowbyblow.engine") is None
    logs.configure(level="info")
    assert logs.steps("blowbyblow.engine") is not None
    logs.configure(level="error")
    assert logs.steps("blowbyblow.engine") is None
    # structlog configured by someone else (a test, an embedding program): its level holds
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG))
    assert logs.steps("blowbyblow.engine") is not None
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    assert logs.steps("blowbyblow.engine") is None
