"""A newcomer's commands: ``bxb new`` writes a commented scenario template for a game system (its
demo, every setup field and action explained from the JSON Schemas), ``bxb examples`` lists and
copies the example scenarios shipped with the package.

The words for a JSON Schema (``schema_words``, ``struct_docs``) are shared with the docs site's
generated scenario-format pages (docs/hooks/generate.py)."""

from __future__ import annotations

import json
import re
import textwrap
import tomllib
from collections.abc import Iterator, Mapping
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated, Any

import tomlkit
import typer
from rich.console import Console
from rich.table import Table

from blowbyblow.cli.app import app, fail, readable, write_output
from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.domain.system import AnyGameSystem, AnyScenario
from blowbyblow.replay.engine.registry import game_systems, get_game_system

WIDTH = 79  # a template's comment lines fit an 80-column editor

# ---------------------------------------------------------------------------------------------
# JSON Schema in words


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def schema_words(node: Mapping[str, Any]) -> str:
    """A schema node as a player would say it: "whole number", "list of Weapon", "one of
    "Mobile" | "Wrecked"", "text or none"."""
    if "$ref" in node:
        return _ref_name(node["$ref"])
    if "anyOf" in node:
        kinds = [schema_words(k) for k in node["anyOf"]]
        optional = "none" in kinds
        kinds = [k for k in kinds if k != "none"]
        if all(k.startswith("one of ") for k in kinds) and len(kinds) > 1:
            kinds = ["one of " + " | ".join(k.removeprefix("one of ") for k in kinds)]
        said = " or ".join(kinds)
        return f"{said} or none" if optional else said
    if "enum" in node:
        return "one of " + " | ".join(json.dumps(v) for v in node["enum"])
    kind = node.get("type")
    if kind == "array":
        if "prefixItems" in node:
            parts = ", ".join(schema_words(p) for p in node["prefixItems"])
            return f"[{parts}]"
        return "list of " + schema_words(node.get("items", {}))
    if kind == "object":
        values = node.get("additionalProperties")
        if isinstance(values, Mapping):
            return "table of text = " + schema_words(values)
        return "table"
    words = {
        "string": "text",
        "integer": "whole number",
        "number": "number",
        "boolean": "true or false",
        "null": "none",
    }
    return words.get(str(kind), str(kind or "anything"))


def field_terms(node: Mapping[str, Any], required: bool) -> tuple[str, str]:
    """A field's type in words and whether it is needed: ("whole number", "default 5")."""
    if required:
        return schema_words(node), "required"
    if "default" in node:
        default = node["default"]
        return schema_words(node), f"default {'none' if default is None else json.dumps(default)}"
    return schema_words(node), "optional"


def field_words(name: str, node: Mapping[str, Any], required: bool) -> str:
    """One field: "m: whole number, default 5"."""
    kind, need = field_terms(node, required)
    return f"{name}: {kind}, {need}"


def _plain(text: str) -> str:
    """A docstring as one line of prose (reST ``literals`` become `literals`)."""
    return re.sub(r"\s+", " ", text.replace("``", "`")).strip()


def struct_docs(schema: Mapping[str, Any]) -> Iterator[tuple[str, str, list[str]]]:
    """Every struct the schema defines: (name, description, ["field: words", ...])."""
    for name, node in schema.get("$defs", {}).items():
        required = set(node.get("required", ()))
        fields = [
            field_words(field, sub, field in required)
            for field, sub in node.get("properties", {}).items()
        ]
        yield name, _plain(node.get("description", "")), fields


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, Mapping):
        if "$ref" in node:
            yield _ref_name(node["$ref"])
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _reachable(schema: Mapping[str, Any], start: Mapping[str, Any]) -> list[str]:
    """The structs ``start`` uses, directly or through other structs, in first-use order."""
    defs = schema.get("$defs", {})
    seen: list[str] = []
    todo = list(_refs(start))
    while todo:
        name = todo.pop(0)
        if name in seen or name not in defs:
            continue
        seen.append(name)
        todo.extend(_refs(defs[name]))
    return seen


# ---------------------------------------------------------------------------------------------
# The template


def _comment(text: str, indent: str = "") -> list[str]:
    wrapped = textwrap.wrap(
        text,
        WIDTH - 2,
        initial_indent=indent,
        subsequent_indent=indent + "  ",
        break_on_hyphens=False,
    )
    return [f"# {line}".rstrip() for line in wrapped]


def _struct_comment(
    schema: Mapping[str, Any], name: str, described: set[str], heading: str = ""
) -> list[str]:
    """Comment lines describing struct ``name`` and the structs it uses not described yet."""
    docs = {n: (d, f) for n, d, f in struct_docs(schema)}
    lines: list[str] = []
    for struct in [name, *_reachable(schema, schema["$defs"][name])]:
        if struct in described:
            continue
        described.add(struct)
        description, fields = docs[struct]
        title = heading if struct == name and heading else struct
        lines += _comment(f"{title}: {description}" if description else f"{title}:")
        for field in fields:
            lines += _comment(field, indent="  ")
    return lines


def _inline(value: Any) -> Any:
    """Nested tables inline (``{ id = "hammer", d = 2 }``), a list of them one a line."""
    if isinstance(value, dict):
        table = tomlkit.inline_table()
        table.update({k: _inline(v) for k, v in value.items()})
        return table
    if isinstance(value, list):
        array = tomlkit.array()
        array.extend(_inline(v) for v in value)
        if any(isinstance(v, dict) for v in value):
            array.multiline(True)
        return array
    return value


def _toml(key: str, value: Any) -> str:
    """``key = value``, or ``[key]`` / ``[[key]]`` sections for a table / a list of tables."""
    doc = tomlkit.document()
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        aot = tomlkit.aot()
        for item in value:
            table = tomlkit.table()
            for k, v in item.items():
                table.add(k, _inline(v))
            aot.append(table)
        doc.add(key, aot)
    elif isinstance(value, dict):
        table = tomlkit.table()
        for k, v in value.items():
            table.add(k, _inline(v))
        doc.add(key, table)
    else:
        doc.add(key, _inline(value))
    return tomlkit.dumps(doc).strip("\n")


def _header(
    system: AnyGameSystem, demo: AnyScenario, rosters: int = 0, *, actions: bool = True
) -> list[str]:
    what = "A scenario for `bxb record`" if actions and not rosters else "A setup for `bxb play`"
    lines = _comment(
        f"{what}: {system.title} (ruleset {system.id} "
        f"{system.version}; rules: {system.rulebook.title})."
    )
    if rosters:
        lines += _comment(
            f"Made by `bxb new --ruleset {system.id}` from {rosters} rosters: no actions, so "
            "`bxb play FILE` starts the battle from here. Say what the rosters cannot (who is "
            "engaged with whom, the ground) in the keys described below. Every key besides "
            "ruleset, label, seed, dice, rulings, choices and actions is the battle's setup; a "
            "key that does not fit is refused with its path named, and nothing recorded."
        )
    elif not actions:
        lines += _comment(
            f"Made by `bxb new --ruleset {system.id}` from the game system's demo and the JSON "
            "Schema of its setup, with no actions: edit the setup, then `bxb play FILE` starts "
            "the battle from here (the demo's actions are shown as comments at the end: with "
            "[[actions]] of its own, `bxb record FILE` records it). Every key besides ruleset, "
            "label, seed, dice, rulings, choices and actions is the battle's setup; a key that "
            "does not fit is refused with its path named, and nothing recorded."
        )
    else:
        lines += _comment(
            f"Made by `bxb new --ruleset {system.id}` from the game system's demo and the JSON "
            "Schema of its setup: edit the setup and the actions, then `bxb record FILE`. Every "
            "key besides ruleset, label, seed, dice, rulings, choices and actions is the "
            "battle's setup; a key that does not fit is refused with its path named, and "
            "nothing recorded."
        )
        lines += _comment(
            "PLANNED FOR ITS OWN DICE: the actions are the demo's, chosen knowing its dice. With "
            "other dice a later action may no longer be legal (a fighter or unit it names may be "
            "down): "
            "`bxb record` then names it and writes nothing, and `bxb play` goes on from "
            "whatever the dice give (docs/scenarios.md, The examples and other dice)."
        )
    lines += ["", _toml("ruleset", system.id), _toml("label", demo.label)]
    if demo.dice is not None and (rosters or not actions):
        # listed dice are the recorded dice of the file's actions: a setup with none would
        # have them all left over, so `bxb play` asks for each die as it is rolled instead
        lines += _comment(
            "physical dice: `bxb play` asks for each as it is rolled (or: seed = TEXT)"
        )
        lines.append(_toml("dice", []))
    elif demo.dice is not None:
        lines += _comment("the physical dice, in the order they are rolled (or: seed = TEXT)")
        lines.append(_toml("dice", list(demo.dice)))
    else:
        lines += _comment("seeded digital dice (or: dice = [4, 2, 6], real dice as rolled)")
        lines.append(_toml("seed", demo.seed or "my-fight-1"))
    return lines


def _rulings(system: AnyGameSystem, demo: AnyScenario) -> list[str]:
    if not system.rulings:
        return []
    lines = ["", "[rulings]"]
    lines += _comment(
        "where the rules text is ambiguous or has variants: each ruling with the value this "
        "battle uses (`bxb rulesets` lists them with their reasons)"
    )
    for ruling in system.rulings:
        value = demo.rulings.get(ruling.name, ruling.default)
        lines += _comment(
            f"{ruling.summary} Choices: {' | '.join(ruling.choices)}; default {ruling.default}"
            f" ({system.rulebook.cite(ruling.rule)})."
        )
        lines.append(_toml(ruling.name, value))
    return lines


def _choices(demo: AnyScenario) -> list[str]:
    lines = ["", "[choices]"]
    lines += _comment(
        'answers to the questions the rules ask during play, by key ("c2/step8" = in action '
        '2 only, "step8" = in any); a question not answered here takes the rules\' default '
        "(`bxb record --ask` asks at a prompt instead)"
    )
    lines += [_toml(str(k), v) for k, v in demo.choices.items()]
    return lines


def _setup(system: AnyGameSystem, demo: AnyScenario) -> list[str]:
    from blowbyblow.domain.roster import without_defaults

    schema = system.setup_schema()
    top = _ref_name(schema["$ref"])
    values = without_defaults(demo.setup)
    node = schema["$defs"][top]
    required = set(node.get("required", ()))
    described = {top}
    plain: list[str] = []
    sections: list[str] = []
    for name, sub in node.get("properties", {}).items():
        value = values.get(name)
        tables = isinstance(value, list) and value and all(isinstance(v, dict) for v in value)
        out = sections if tables or isinstance(value, dict) else plain
        out += ["", *_comment(field_words(name, sub, name in required))]
        for struct in _refs(sub):
            out += _struct_comment(schema, struct, described)
        if name in values:
            out.append(_toml(name, values[name]))
    head = ["", *_comment(f"The setup ({top}): {_plain(node.get('description', ''))}".strip())]
    return head + plain + sections


def _actions(system: AnyGameSystem, demo: AnyScenario, *, played: bool = True) -> list[str]:
    """The actions' syntax explained, then the demo's actions: as the file's own (``played``,
    for ``bxb record``), or shown as commented-out examples (a setup for ``bxb play``, which
    starts from the setup itself)."""
    from blowbyblow.domain.roster import without_defaults

    schema = system.command_schema()
    lines = ["", *_comment("The actions, adjudicated in order. Each [[actions]] table is one of:")]
    described: set[str] = set()
    for name in schema.get("$defs", {}):
        node = schema["$defs"][name]
        tag = node.get("properties", {}).get("type", {}).get("enum")
        if tag:
            lines += _struct_comment(schema, name, described, heading=f'type = "{tag[0]}"')
    commands = [without_defaults(c) for c in demo.commands]
    if played:
        return [*lines, "", _toml("actions", commands)]
    example = _toml("actions", commands).splitlines()
    lines += ["", *_comment("No actions: `bxb play` starts from the setup. Examples (the demo's):")]
    if demo.dice is not None:
        lines += _comment("(their dice, for `bxb record`: " + _toml("dice", list(demo.dice)) + ")")
    return lines + ["# " + line if line else "#" for line in example]


def setup_from_rosters_template(system: AnyGameSystem, setup: AnyScenario, rosters: int) -> str:
    """A commented TOML setup (no actions) for ``bxb play``: ``setup`` made from rosters, with
    every setup field and ruling explained; ``bxb play`` starts a battle from it as it stands."""
    lines = [*_header(system, setup, rosters), *_setup(system, setup), *_rulings(system, setup)]
    text = "\n".join(lines) + "\n"
    tomllib.loads(text)  # a setup that is not TOML is a bug here, not the user's
    return text


def scenario_template(system: AnyGameSystem, *, actions: bool = True) -> str:
    """A commented TOML scenario for ``system``: its demo, with every setup field, action and
    ruling explained. With ``actions``, ``bxb record`` records it as it stands; without, it is a
    setup with no actions (the demo's shown as comments) that ``bxb play`` starts from."""
    demo = system.demo()
    # TOML puts every plain key before the first [table]: the setup's plain keys come right
    # after the header, so [rulings] and [choices] close the file.
    lines = [
        *_header(system, demo, actions=actions),
        *_setup(system, demo),
        *_actions(system, demo, played=actions),
        *_rulings(system, demo),
        *(_choices(demo) if actions else []),
    ]
    text = "\n".join(lines) + "\n"
    tomllib.loads(text)  # a template that is not TOML is a bug here, not the user's
    return text


def _system(ruleset: str) -> AnyGameSystem:
    try:
        return get_game_system(ruleset)
    except BlowByBlowError as e:
        fail(f"--ruleset: {e}")


def _ruleset_ids(incomplete: str) -> list[str]:
    """Shell completion of --ruleset."""
    return [r for r in game_systems() if r.startswith(incomplete)]


def _example_names(incomplete: str) -> list[str]:
    """Shell completion of an example's name."""
    return [n for n in shipped_examples() if n.startswith(incomplete)]


@app.command("new")
def cmd_new(  # noqa: PLR0913 - typer makes each parameter a command-line option
    ruleset: Annotated[
        str,
        typer.Option(
            "--ruleset",
            help="Game system id (`bxb rulesets` lists them).",
            autocompletion=_ruleset_ids,
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="File to write, never replacing one (default or -: standard output).",
        ),
    ] = None,
    roster: Annotated[
        list[Path] | None,
        typer.Option(
            "--roster",
            help="A roster file (.toml, .json, BattleScribe .ros/.rosz), once for each side: "
            "makes a setup for `bxb play` from them, with no actions.",
        ),
    ] = None,
    only: Annotated[
        list[str] | None,
        typer.Option("--only", help="A fighter, model or unit id taking part (default: all)."),
    ] = None,
    tournament: Annotated[
        str | None,
        typer.Option(
            "--tournament",
            "-t",
            help="Take each --roster as PLAYER/NAME: a roster kept for this tournament "
            "(`bxb roster list`), as it stands now.",
        ),
    ] = None,
    actions: Annotated[
        bool,
        typer.Option(
            "--actions",
            help="Keep the demo's actions in the file, for `bxb record` (default: none, "
            "shown as comments: a setup for `bxb play`).",
        ),
    ] = False,
) -> None:
    """Write a commented setup for a game system, its demo's, with no actions, ready for `bxb
    play` (--actions: the demo's actions too, ready for `bxb record`); with --roster, a setup
    made from the rosters."""
    system = _system(ruleset)
    if tournament is not None and not roster:
        fail("--tournament: name the rosters too (--roster PLAYER/NAME, once for each side)")
    if roster:
        if actions:
            fail("--actions: a setup from rosters has no actions; play it with `bxb play`")
        text = _from_rosters(system, roster, only, tournament)
    elif only:
        fail("--only: name the rosters too (--roster FILE, once for each side)")
    else:
        text = scenario_template(system, actions=actions)
    write_output(out, text, replace=False)
    if out is not None and str(out) != "-":
        next_step = f"bxb record {out}" if actions else f"bxb play {out}"
        typer.echo(readable(f"wrote {out}: edit it, then `{next_step}`"), err=True)


def _from_rosters(
    system: AnyGameSystem, given: list[Path], only: list[str] | None, tournament: str | None
) -> str:
    from blowbyblow.cli.rosters import kept_roster, roster_from_file
    from blowbyblow.domain.roster import setup_from_rosters
    from blowbyblow.domain.system import Scenario

    try:
        if tournament is None:
            rosters = [roster_from_file(f, system.id, None) for f in given]
        else:
            rosters = [kept_roster(tournament, str(ref)) for ref in given]
        setup = setup_from_rosters(system, rosters, only or None)
    except BlowByBlowError as e:
        fail(str(e), code=1)
    label = " v ".join(f"{r.name} ({r.player})" for r in rosters)
    scenario: AnyScenario = Scenario(
        ruleset=system.id, label=label, setup=setup, commands=[], seed=None
    )
    return setup_from_rosters_template(system, scenario, len(rosters))


# ---------------------------------------------------------------------------------------------
# The shipped examples


def shipped_examples() -> dict[str, Traversable]:
    """The example scenarios in the package (cli/scenarios/*.toml), by name."""
    folder = files("blowbyblow.cli") / "scenarios"
    found = {
        entry.name.removesuffix(".toml"): entry
        for entry in folder.iterdir()
        if entry.name.endswith(".toml")
    }
    return dict(sorted(found.items()))


@app.command("examples")
def cmd_examples(
    name: Annotated[
        str | None,
        typer.Argument(
            help="The example to copy (default: list them).", autocompletion=_example_names
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Where to copy it, never replacing a file (default: NAME.toml here; -: standard "
            "output). A folder: copy into it.",
        ),
    ] = None,
) -> None:
    """List the example scenarios shipped with bxb, or copy one to edit and record."""
    examples = shipped_examples()
    if name is None:
        # Rich wraps the labels at the terminal's width (80 columns when not a terminal).
        table = Table(box=None, show_header=False, padding=(0, 2, 0, 0))
        table.add_column(no_wrap=True)
        table.add_column()
        for example, entry in examples.items():
            data = tomllib.loads(entry.read_text(encoding="utf-8"))
            ruleset = "" if data.get("ruleset") == example else f" (ruleset {data.get('ruleset')})"
            table.add_row(example, f"{data.get('label')}{ruleset}")
        console = Console(highlight=False)
        with console.capture() as shown:
            console.print(table)
        typer.echo("\n".join(line.rstrip() for line in shown.get().splitlines()))
        typer.echo("copy one with `bxb examples NAME` (-o FILE, or -o - to print it)", err=True)
        return
    chosen = examples.get(name.removesuffix(".toml"))
    if chosen is None:
        fail(f"no example {name!r}; the examples are: {', '.join(examples)}")
    target = out if out is not None else Path(chosen.name)
    if target.is_dir():
        target = target / chosen.name
    write_output(target, chosen.read_bytes(), replace=False)
    if str(target) != "-":
        typer.echo(readable(f"wrote {target}: `bxb record {target}` records it"), err=True)
