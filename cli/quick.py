"""``bxb at`` on its quick path: the command line read here, the store read without eventsourcing
(``replay/store/reading.py``), the battle's game system without the rest of the rules
(``replay/engine/readers.py``), and the state printed as the full command prints it, byte for
byte (``cli/battles.py``'s ``cmd_at``). A judge stepping through a battle runs ``bxb at`` again
and again: this path starts in about twice the time Python takes to start with msgspec and
sqlite3, where the command-line framework, eventsourcing's application, the registry's scan of
the installed packages and a whole game system took three times more.

It takes the common case only, and says nothing of its own: whatever it does not know for sure
it can print exactly as the full command would (an option or a form of one it does not read, a
store that is not a SQLite file as this release leaves it, a game system not shipped, anything
that fails: every error and its message, ``--help``, a line that Rich would wrap) gives None,
having printed nothing, and ``cli/main.py`` runs the full command, which reads the store again.
``tests/core/test_quick_at.py`` runs both on every system, with every option."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from blowbyblow.cli import end_if_reader_gone

if TYPE_CHECKING:
    from blowbyblow.replay.store.readmodels import Reading

# The options every command shares (cli/app.py, main_options), before or after `at`: those taking
# a value, and flags. Any other option, or any other form of these (`-qq`, `--`), goes the full way.
_VALUED = ("--db", "--log-level", "--command")
_FLAGS = ("--log-json", "--quiet", "-q", "--debug", "--json")
_LEVELS = ("debug", "info", "warning", "error")
# How click reads a flag given in the environment (BXB_DEBUG).
_BOOLS = ("1", "true", "t", "yes", "y", "on", "0", "false", "f", "no", "n", "off", "")


class _Full(Exception):
    """The quick path does not take this: the full command runs."""


def _options(argv: list[str]) -> dict[str, str | list[str] | bool]:
    """The command line, as click reads it for ``bxb [shared options] at [options] ARGS``: each
    option's last value, and the arguments in order; _Full for anything else."""
    found: dict[str, str | list[str] | bool] = {}
    args: list[str] = []
    command = False
    words = iter(argv)
    for word in words:
        name, eq, value = word.partition("=")
        if name in _VALUED and (name != "--command" or command):
            if not eq:
                value = next(words, None)  # type: ignore[assignment]
                if value is None:
                    raise _Full
            found[name] = value
        elif word in _FLAGS and not eq and (word != "--json" or command):
            found["--quiet" if word == "-q" else word] = True
        elif word.startswith("-") and word != "-":
            raise _Full  # --help, --version, an option of another command, `--`
        elif not command:
            if word != "at":
                raise _Full
            command = True
        else:
            args.append(word)
    if not command:
        raise _Full
    found["args"] = args
    return found


def _whole(text: str | bool | list[str] | None) -> int | None:
    """A whole number written in ASCII digits alone (None for none; any other form: the full
    way, which reads it as Python's int does, or says what is wrong with it)."""
    if text is None:
        return None
    if isinstance(text, str) and text.isascii() and text.isdigit():
        return int(text)
    raise _Full


def _store_path(given: str | bool | list[str] | None) -> str:
    """The SQLite file the command reads, as ``open_store`` names it; _Full for any other store,
    a file that does not exist, or settings the store refuses (the full command says why)."""
    from blowbyblow.replay.store.persistence import default_db_path, persistence_env

    spec = given if isinstance(given, str) else os.environ.get("BXB_DB") or str(default_db_path())
    if not Path(spec).expanduser().is_file():
        raise _Full  # none there (or a folder): `no store at …`, said by the full command
    env = persistence_env(spec)
    if env["PERSISTENCE_MODULE"] != "eventsourcing.sqlite":
        raise _Full
    return env["SQLITE_DBNAME"]


def at(argv: list[str]) -> str | None:
    """What ``bxb ARGV`` prints on standard output when ARGV is an ``at`` the quick path takes
    (it writes nothing else, and exits 0); None when the full command must run."""
    try:
        return _at(argv)
    except Exception:
        return None


def _at(argv: list[str]) -> str:
    if any(k.endswith("_COMPLETE") for k in os.environ):  # shell completion
        raise _Full
    if os.environ.get("BXB_DEBUG", "").lower() not in _BOOLS:
        raise _Full
    if (sys.stdout.encoding or "").lower().replace("-", "") != "utf8":
        raise _Full
    found = _options(argv)
    level = found.get("--log-level")
    if level is not None and (found.get("--quiet") or str(level).lower() not in _LEVELS):
        raise _Full  # the full command says what is wrong
    args = found["args"]
    assert isinstance(args, list)
    if len(args) > 2:
        raise _Full
    command = _whole(found.get("--command"))
    given = args[0] if args else None
    battle = args[1] if len(args) == 2 else None
    if command is not None and given is not None and battle is None:
        given, battle = None, given  # `bxb at --command 3 BATTLE`
    if (given is None) == (command is None):
        raise _Full
    position = _whole(given)
    return _read(
        _store_path(found.get("--db")), battle, position, command, bool(found.get("--json"))
    )


def _read(
    path: str, ref: str | None, position: int | None, command: int | None, as_json: bool
) -> str:
    from blowbyblow.replay.engine.codec import codec_of
    from blowbyblow.replay.engine.readers import reading_parts
    from blowbyblow.replay.store.reading import open_sqlite

    store = open_sqlite(path, reading_parts)  # None: a store this release has not opened yet
    if store is None:
        raise _Full
    battle = store.find(ref)
    row = store.records.row(battle)
    if row is None:
        raise _Full
    codec_of(reading_parts(row.ruleset))  # the battle's events decoded without the registry
    if command is not None:
        from blowbyblow.projections.disputes import after_command

        events = [e.event for e in store.read(battle)]
        position = after_command(events, command, store.version(battle))
    if position is None or not 1 <= position <= store.version(battle):
        raise _Full
    at = store.state_at(battle, position)
    if as_json:
        return as_json_line(at) + "\n"
    header, texts = as_text(at)
    return "".join(line + "\n" for line in [header, *_wrapped(texts)])


def as_json_line(at: Reading) -> str:
    """``bxb at --json``: the state after a position, as one JSON object."""
    from blowbyblow.replay.engine.codec import encode_json, to_builtins

    shown = {
        "battle": str(at.battle),
        "position": at.position,
        "of": at.of,
        "event": type(at.event).__name__,
        "voided": at.voided is not None,
        "state": to_builtins(at.state),
    }
    return encode_json(shown).decode()


def as_text(at: Reading) -> tuple[str, list[str]]:
    """``bxb at``: its first line, and the texts said after it (each wrapped as ``say_lines``
    wraps it): the event at the position, the void it falls in, the state described."""
    from blowbyblow.replay.engine.narrate import narrate

    said = [f"  {narrate(at.system, at.event).strip()}"]
    void = at.voided
    if void is not None:
        said.append(
            f"  (this is command {void.index}, voided at position {void.voided_at} by "
            f"{void.by}: {void.reason}; it is not played, so the state is the one before it)"
        )
    said.append(at.system.describe_state(at.state))
    return f"battle {at.battle} after position {at.position} of {at.of}:", said


def _wrapped(texts: list[str]) -> list[str]:
    """``say_lines`` of each text, with the standard library alone (_Full if Rich would wrap)."""
    from blowbyblow.cli.text import output_width, wrap_plain

    width, out = output_width(), []
    for text in texts:
        for line in text.splitlines():
            plain = wrap_plain(line, width)
            if plain is None:
                raise _Full
            out += plain
    return out


def write(text: str) -> int:
    """Print ``text``; the exit status. A reader gone (`bxb at 3 | head -1`): the end a pipe
    gives, as the full command has it (``end_if_reader_gone``); an output that cannot be written
    (a full disk): its one error line, as the full command says it, and 1 (it was a traceback)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as e:
        end_if_reader_gone(e)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing left to flush
        sys.stderr.write(f"error: {e.strerror or e}\n")
        return 1
    return 0


__all__ = ["as_json_line", "as_text", "at", "write"]
