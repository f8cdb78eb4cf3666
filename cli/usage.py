"""A usage error as `bxb` says it: one `error:` line, exit 2, in the same words as the
commands' own checks (``--port: expected 1 to 65535, not 0``). Click's own words for a value it
cannot convert ("Invalid value for '--port': 'x' is not a valid int") read beside ours as another
program's; they are said the way ours are: the option first, then what was expected."""

from __future__ import annotations

import re

import typer
from typer._click.exceptions import MissingParameter  # typer carries its own click

_NUMBER = re.compile(r"(?s)(.*) is not a valid (integer|int|float|integer range|float range)\.?")
_EXPECTED = {"integer": "a whole number", "int": "a whole number", "float": "a number"}


def _bad_value(e: typer.BadParameter) -> str | None:
    """``--port: expected a whole number, not 'x'`` for a value Click could not convert; None
    when Click's message is not one of a value's (``e.param`` unknown)."""
    param = e.param
    if param is None:
        return None
    names = [o for o in param.opts if o.startswith("--")] or list(param.opts)
    option = param.param_type_name == "option"
    name = names[0] if option and names else (param.name or "value")
    if isinstance(e, MissingParameter):  # its message is empty: Click says it in its own words
        what = " ".join((getattr(param, "help", None) or "").split()).rstrip(".")
        name = name if option else name.upper()  # an argument as the usage line shows it
        return f"{name} is missing" + (f": {what}" if what else "")
    number = _NUMBER.fullmatch(e.message)
    if number and number.group(2) in _EXPECTED:
        return f"{name}: expected {_EXPECTED[number.group(2)]}, not {number.group(1)}"
    return f"{name}: {e.message}"


def usage_error(e: typer.TyperException) -> int:
    """A usage error in one line (exit 2), e.g. "error: No such option: --nope (see `bxb verify
    --help`)"; a group called with no command (`bxb` alone, `bxb tables`) shows its help once
    and exits 0, as `--help` does: a newcomer typing `bxb` asked what it can do."""
    from blowbyblow.cli.app import readable

    if type(e).__name__ == "NoArgsIsHelpError":
        # Click made the error's message with ``ctx.get_help()``, which Typer's rich help
        # prints as it goes (leaving the message empty); a plain help is the message itself.
        # Printing ``get_help()`` again showed the help twice.
        shown = e.format_message()
        if shown.strip():
            typer.echo(shown)
        return 0
    ctx = getattr(e, "ctx", None)
    hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
    said = _bad_value(e) if isinstance(e, typer.BadParameter) else None
    message = " ".join((said or e.format_message()).split()).rstrip(".")
    typer.echo(f"error: {readable(message)}{hint}", err=True)
    return e.exit_code
