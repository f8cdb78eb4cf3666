"""Every test run starts as on CI's fresh machine: no judge's keys in the user's config folder,
no default store, no store named by the environment. The product reads ``XDG_CONFIG_HOME``
(keys), ``XDG_DATA_HOME`` (the default store) and ``BXB_DB``: a developer's own keys or store
would otherwise change what a test sees (a receipt printed or not, a battle already there), so
a test could pass here and fail there. Both folders are fresh for the run, and removed after
it; subprocesses inherit them."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_ISOLATED = ("XDG_CONFIG_HOME", "XDG_DATA_HOME")
_UNSET = ("BXB_DB", "BXB_DB_PASSWORD_FILE", "BXB_BUSY_TIMEOUT", "BXB_DEBUG")


def pytest_configure(config: pytest.Config) -> None:
    home = tempfile.mkdtemp(prefix="bxb-tests-")
    saved = {name: os.environ.get(name) for name in (*_ISOLATED, *_UNSET)}
    for name in _ISOLATED:
        os.environ[name] = os.path.join(home, name.lower())
    for name in _UNSET:
        os.environ.pop(name, None)

    def restore() -> None:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(home, ignore_errors=True)

    config.add_cleanup(restore)
