"""``bxb``: the command line. It holds no rules: it reads scenarios, opens the store, and prints
what replay/ computes. Each group of commands is a module of its own; importing it registers
its commands on the one Typer ``app``.

Running ``bxb COMMAND`` imports only the module of that command (``COMMANDS``), so a command
loads what it uses and no more (``bxb at`` does not load the prompt of ``bxb play``, nor any game
system but its battle's); ``bxb --help``, completion, a command this table does not know, and
``from blowbyblow.cli.main import app`` register every module. ``bxb at`` goes first by its
quick path, with no command-line framework at all (``cli/quick.py``), and by the full command
when that path does not take it."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from blowbyblow.cli import STOPPED

MODULES = (
    "battles",
    "disputes",
    "evidence",
    "judging",
    "newcomer",
    "odds",
    "play",
    "rosters",
    "serve",
    "witness",
)

# The module that registers each command (or group of commands).
COMMANDS = {
    **dict.fromkeys(("rulesets", "record", "demo", "battles", "log", "at"), "battles"),
    **dict.fromkeys(("receipt", "root", "check-proof"), "evidence"),
    **dict.fromkeys(("flag", "rule", "note", "fork"), "disputes"),
    **dict.fromkeys(
        ("verify", "keys", "seal", "export", "import", "whatif", "diff", "void"), "judging"
    ),
    **dict.fromkeys(("new", "examples"), "newcomer"),
    **dict.fromkeys(("odds", "luck"), "odds"),
    "play": "play",
    "roster": "rosters",
    **dict.fromkeys(("tournament", "tables", "serve"), "serve"),
    "witness": "witness",
}
_TAKES_VALUE = ("--db", "--log-level")  # the global options followed by a value


def command_of(argv: list[str]) -> str | None:
    """The command ``bxb`` is run with (its first word after the global options), if any."""
    words = iter(argv)
    for word in words:
        if word in _TAKES_VALUE:
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def modules_for(argv: list[str]) -> tuple[str, ...]:
    """The command modules to import to run ``bxb`` with ``argv``."""
    if any(k.endswith("_COMPLETE") for k in os.environ):  # shell completion: every command
        return MODULES
    module = COMMANDS.get(command_of(argv) or "")
    return (module,) if module is not None else MODULES  # no command: the help lists them all


def register(modules: tuple[str, ...] = MODULES) -> None:
    import blowbyblow.cli.app  # noqa: F401 - the application the modules register on

    for module in modules:
        importlib.import_module(f"blowbyblow.cli.{module}")


def __getattr__(name: str) -> Any:
    """``app``: the application with every command registered (what tests and other Python
    code import)."""
    if name == "app":
        register()
        from blowbyblow.cli.app import app

        return app
    raise AttributeError(name)


def main() -> None:
    argv = sys.argv[1:]
    if "at" in argv:
        from blowbyblow.cli import quick

        said = quick.at(argv)
        if said is not None:
            sys.exit(quick.write(said))
    serving = command_of(argv) == "serve"
    if serving:  # a server's stop (SIGTERM) from its first instant is a Ctrl-C: cli/serve.py
        import signal

        signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        register(modules_for(argv))
    except KeyboardInterrupt:  # Ctrl-C while the command's modules load: no traceback
        if serving:
            print(STOPPED, file=sys.stderr)
        sys.exit(0 if serving else 130)  # 130: as typer ends a command stopped by Ctrl-C
    from blowbyblow.cli.app import app

    app()


__all__ = ["main"]  # and `app`, made by __getattr__


if __name__ == "__main__":
    main()
