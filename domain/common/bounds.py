"""The bounds a setup's types declare, checked for a setup built in code as well.

A game system bounds every characteristic and count of its setup with ``msgspec.Meta`` on the
field (``Annotated[int, Meta(ge=1, le=20)]``): a scenario file or a JSON body is checked against
them as it is read, and ``check_bounds`` checks a setup made in Python (a demo, a test, a
plug-in's own builder) the same way when a battle starts with it (the engine's ``start_event``).
Bounds are what keep one command quick: no value a new battle's setup may hold makes adjudication
run for long (docs/scenarios.md, Bounds). They are input checks, not part of the record: they
change no recorded byte, and a battle read back from a log is read as it was recorded, whatever
bounds this release has (a log is evidence for years)."""

from __future__ import annotations

import re

import msgspec

from blowbyblow.domain.core import SetupError


def check_bounds(setup: msgspec.Struct) -> None:
    """Raise SetupError naming the first field outside its declared bounds."""
    try:
        msgspec.convert(msgspec.to_builtins(setup), type(setup))
    except msgspec.ValidationError as e:
        message = str(e)
        where = re.search(r" - at `\$\.?(.*)`$", message)
        if where is None:
            raise SetupError(message) from None
        raise SetupError(f"{where.group(1)}: {message[: where.start()]}") from None
