"""Odds and luck: ``bxb odds`` (what a command will probably do, exact or Monte Carlo) and
``bxb luck`` (how lucky each side's dice were over battles). The numbers come from
``replay.odds.explore`` and ``replay.odds.luck``; this module only reads the inputs and draws them."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, Any

import msgspec
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable

from blowbyblow.cli.app import _battle, _events, app, fail, open_store, scenario_argument
from blowbyblow.cli.numbers import require_position
from blowbyblow.cli.piped import PipedConsole
from blowbyblow.domain.core import BattleStarted, BlowByBlowError, CommandIssued, Event
from blowbyblow.replay.engine.codec import encode_json
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.scenario import ScenarioError
from blowbyblow.replay.odds.answers import CountOdds
from blowbyblow.replay.odds.compare import Comparison, compare_odds
from blowbyblow.replay.odds.explore import (
    DEFAULT_BUDGET,
    DEFAULT_SAMPLES,
    DEFAULT_SEED,
    Estimate,
    HowToExplore,
    Odds,
    Policy,
    Share,
    Situation,
    next_odds,
    next_situation,
    recorded_odds,
    scenario_command,
    scenario_odds,
)
from blowbyblow.replay.odds.luck import DEFAULT_LUCK_SAMPLES, HowToJudge, Luck, luck_of
from blowbyblow.replay.odds.quick import QuickError, parse_set, quick_scenario

BAR = 24  # characters of a full bar
BUDGET_HELP = "Runs of the rules allowed for the exact odds; past it, Monte Carlo."
# Bounds on what a command may be asked to compute: a few minutes at most, never "for ever"
# (docs/odds.md; a run or a sample is one adjudication, about a millisecond or a few).
MAX_BUDGET = 1_000_000
MAX_SAMPLES = 1_000_000
MAX_LUCK_SAMPLES = 10_000  # per face of every roll past the budget


def _bar(p: float) -> str:
    eighths = round(max(0.0, min(1.0, p)) * BAR * 8)
    full, rest = divmod(eighths, 8)
    return "█" * full + ("▏▎▍▌▋▊▉"[rest - 1] if rest else "")


def _pct(e: Estimate) -> str:
    if e.exact is not None:
        return f"{e.value:7.2%}"
    return f"{e.value:7.2%} ({e.low:.1%}–{e.high:.1%})"


def _mean(e: Estimate) -> str:
    if e.exact is not None and e.fraction.denominator == 1:
        return str(e.fraction.numerator)
    if e.exact is not None:
        return f"{e.value:.3f}" + (f" ({e.exact})" if "/" in e.exact and len(e.exact) < 12 else "")
    return f"{e.value:.3f} ±{(e.high - e.low) / 2:.3f}"


def _shares(console: Console, title: str, shares: list[Share]) -> None:
    table = RichTable(title=escape(title), title_justify="left", show_header=False, box=None)
    table.add_column("value", style="bold")
    table.add_column("bar")
    table.add_column("p", justify="right")
    for s in shares:
        table.add_row(escape(s.value), _bar(s.p.value), _pct(s.p))
    console.print(table)


def _method(o: Odds) -> str:
    if o.method == "exact":
        grouped = f"; rolls taken as multisets: {', '.join(o.grouped)}" if o.grouped else ""
        faces = "equivalent faces grouped" if o.traced else "every face run"
        return (
            f"exact: {o.runs} runs of the rules, {o.outcomes} distinct outcomes ({faces}{grouped})"
        )
    return (
        f"Monte Carlo: {o.samples} samples, seed {o.seed!r}, 95% intervals ({o.note}; "
        f"budget {o.budget} runs)"
    )


def print_odds(o: Odds, title: str) -> None:
    console = PipedConsole(highlight=False, soft_wrap=True)
    console.print(f"[bold]{escape(title)}[/bold]: command {o.command} ({o.action}), {o.ruleset}")
    console.print(escape(f"method: {_method(o)}; choices: {o.policy}"))
    summary = RichTable(title="fighters and units", title_justify="left")
    columns: list[tuple[str, Any]] = [
        ("unit", lambda u: f"{u.name} [{u.id}]"),
        ("side", lambda u: u.side),
        ("before", lambda u: u.status_before),
        ("most likely after", lambda u: f"{u.status[0].value} {u.status[0].p.value:.1%}"),
    ]
    if any(u.expected_wounds_lost.value for u in o.units):
        columns.append(("wounds lost (E)", lambda u: _mean(u.expected_wounds_lost)))
    if any(u.removed.value for u in o.units):
        columns.append(("removed", lambda u: f"{u.removed.value:.1%}"))
    if any(u.captured.value for u in o.units):
        columns.append(("captured", lambda u: f"{u.captured.value:.1%}"))
    for name, _ in columns:
        summary.add_column(name)
    for u in o.units:
        summary.add_row(*(escape(str(cell(u))) for _, cell in columns))
    console.print(summary)
    for u in o.units:
        if len(u.status) > 1 or u.status[0].value != u.status_before:
            _shares(console, f"{u.name} [{u.id}]: status after", u.status)
        if any(s.value != "0" for s in u.wounds_lost):
            _shares(console, f"{u.name} [{u.id}]: wounds lost", u.wounds_lost)
        if u.renamed:
            _shares(console, f"{u.name} [{u.id}]: becomes", u.renamed)
    for side in o.sides:
        _shares(console, f"{side.side}: loss (E = {_mean(side.expected_loss)})", side.loss)
        _shares(
            console,
            f"{side.side}: net loss, its loss less the others' (E = "
            f"{_mean(side.expected_net_loss)})",
            side.net_loss,
        )
    console.print(_counts(o))
    if o.happened is not None:
        h = o.happened
        console.print(
            f"[bold]what the dice gave[/bold] (this exact outcome: {_pct(h.probability).strip()})"
        )
        for s in h.sides:
            console.print(
                f"  {s.side}: net loss {s.net_loss}; an outcome at least as bad: "
                f"{_pct(s.at_least_as_bad).strip()}, at most as bad: {_pct(s.at_most_as_bad).strip()}"
            )


AT_LEAST_SHOWN = 3  # columns of P(at least k) in the text output; --json has them all


def _counts(o: Odds) -> RichTable:
    """The tallies (each side's share under it) and the rule steps: mean, spread, at least k."""
    rows: list[tuple[str, CountOdds]] = []
    for c in o.tallies:
        rows.append((c.name, c))
        rows.extend((f"  by {s.side}", s) for s in c.by_side if s.expected.high > 0)
    rows.extend((c.name, c) for c in o.events)
    most = min(AT_LEAST_SHOWN, max((len(c.at_least) for _, c in rows), default=1))
    table = RichTable(title="tallies and rule steps", title_justify="left")
    for name in ("", "mean", "spread (sd)", *(f"≥ {k}" for k in range(1, most + 1))):
        table.add_column(name, justify="left" if not name else "right")
    for name, c in rows:
        at_least = [f"{s.p.value:.1%}" for s in c.at_least[:most]]
        table.add_row(
            escape(name),
            _mean(c.expected).split(" (")[0],
            f"{c.spread:.3f}",
            *(at_least + [""] * (most - len(at_least))),
        )
    return table


def print_comparison(c: Comparison, title: str) -> None:
    console = PipedConsole(highlight=False, soft_wrap=True)
    first = c.odds[0]
    console.print(
        f"[bold]{escape(title)}[/bold]: {len(c.labels)} choices side by side, {first.ruleset}"
    )
    for number, (label, o) in enumerate(zip(c.labels, c.odds, strict=True), start=1):
        console.print(escape(f"choice {number}: {label}"))
        console.print(escape(f"  {_method(o)}; choices: {o.policy}"))
    table = RichTable(title="expected values and probabilities", title_justify="left")
    table.add_column("")
    for number in range(1, len(c.labels) + 1):
        table.add_column(f"choice {number}", justify="right")
    for row in c.rows:
        cells = [_pct(v).strip() if "removed" in row.what else _mean(v) for v in row.values]
        table.add_row(escape(row.what), *cells)
    console.print(table)
    console.print("net loss: what a side suffers less what it deals (lower is better for it)")


PolicyOption = Annotated[
    str,
    typer.Option(
        "--policy",
        help="How choices are made: default, scripted (the scenario file's choices), "
        "best-for:SIDE or worst-for:SIDE (every choice for the least / most net loss of SIDE).",
    ),
]


@app.command("odds")
def cmd_odds(  # noqa: PLR0913 - typer makes each parameter a command-line option
    scenario: Annotated[
        Path | None,
        typer.Argument(help="Scenario TOML file (-: standard input), or use --battle."),
    ] = None,
    command: Annotated[
        int, typer.Option("--command", help="The scenario's action to weigh, from 1.")
    ] = 1,
    battle: Annotated[
        str | None,
        typer.Option("--battle", help="A recorded battle (id, id prefix or label) instead."),
    ] = None,
    position: Annotated[
        int | None,
        typer.Option("--position", help="With --battle: the recorded command at this position."),
    ] = None,
    next_action: Annotated[
        str | None,
        typer.Option(
            "--next",
            help='With --battle or --ruleset: a next command, as JSON ({"type": ...}).',
        ),
    ] = None,
    ruleset: Annotated[
        str | None,
        typer.Option(
            "--ruleset",
            help="Quick odds, no scenario file: this game system's demo setup (its fighters "
            "changed with --set) and --next, or its --command N.",
        ),
    ] = None,
    sets: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            help="With --ruleset: a setup field as the setup forms name it, PATH=VALUE "
            "(fighters[0].ws=4, VALUE as JSON or text); repeat it.",
        ),
    ] = None,
    policy: PolicyOption = "",
    budget: Annotated[int, typer.Option("--budget", help=BUDGET_HELP)] = DEFAULT_BUDGET,
    samples: Annotated[
        int, typer.Option("--samples", help="Monte Carlo samples past the budget.")
    ] = DEFAULT_SAMPLES,
    seed: Annotated[
        str, typer.Option("--seed", help="Seed of the Monte Carlo dice.")
    ] = DEFAULT_SEED,
    group: Annotated[
        list[str] | None,
        typer.Option(
            "--group",
            help="A roll (glob on its key or purpose) whose dice only count as a multiset; "
            "repeat it. Default: the game system's own list. --group none: none.",
        ),
    ] = None,
    until: Annotated[
        list[str] | None,
        typer.Option(
            "--until",
            help="Stop the command after the first event of this type (e.g. RoundWon): the "
            "odds of that point of it. Repeat it for several types.",
        ),
    ] = None,
    versus: Annotated[
        list[str] | None,
        typer.Option(
            "--versus",
            help='Another command from the same state, as JSON ({"type": ...}), to compare '
            "side by side with the one weighed; repeat it for more.",
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", help="Also draw the odds as bars into this image (.png, .svg)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
) -> None:
    """The odds of one command: each fighter's or unit's status after it, wounds lost, the
    system's tallies, each side's loss, with the method used (exact, or Monte Carlo with 95%
    intervals); for a command whose dice are known, how unlikely what they gave was."""
    if not 1 <= budget <= MAX_BUDGET or not 0 <= samples <= MAX_SAMPLES:
        fail(
            f"--budget must be 1 to {MAX_BUDGET:,} and --samples 0 to {MAX_SAMPLES:,}, "
            f"not {budget} and {samples}"
        )
    if [scenario, battle, ruleset].count(None) != 2:
        fail("give a scenario FILE, --battle ID or --ruleset ID (one of them)")
    if sets and ruleset is None:
        fail("--set goes with --ruleset")
    if battle is None and (position is not None or (next_action is not None and not ruleset)):
        fail("--position goes with --battle, --next with --battle or --ruleset")
    if battle is not None and (position is None) == (next_action is None):
        fail("with --battle, give --position N (a recorded command) or --next JSON (not both)")
    base = HowToExplore(
        budget=budget,
        samples=samples,
        seed=seed,
        group=None if group is None else [g for g in group if g != "none"],
        until=frozenset(until or ()),
    )
    if versus and position is not None:
        fail("--versus compares next commands: give a scenario FILE or --battle with --next")
    try:
        if scenario is not None or ruleset is not None:
            sc = (
                scenario_argument(scenario)
                if scenario is not None
                else _quick(ruleset or "", sets or [], next_action, command)
            )
            command = 1 if ruleset is not None else command
            how = _how(policy or "scripted", sc.choices, base)
            title = sc.label
            if versus:
                at, _ = scenario_command(sc, command)
                return _compare(at, versus, how, title, as_json)
            odds = scenario_odds(sc, command, how)
        else:
            store = open_store()
            bid = _battle(store, battle)
            if position is not None:
                require_position(store, bid, position, "--position")
            events = [e.event for e in _events(store, bid)]
            if position is not None and not any(
                isinstance(e, CommandIssued) for e in events[:position]
            ):  # the battle has it, but no command holds it: as bad a --position (exit 2)
                starts = [n for n, e in enumerate(events, 1) if isinstance(e, CommandIssued)]
                fail(
                    f"--position: {position} is before the battle's first command"
                    + (f" (at position {starts[0]})" if starts else " (it has none yet)")
                )
            first = events[0]
            assert isinstance(first, BattleStarted)
            title = first.label
            how = _how(policy, {}, base)
            if versus:
                at = next_situation(events, _command_json(events, next_action or ""))
                return _compare(at, versus, how, title, as_json)
            odds = _from_battle(events, position, next_action, how)
        if plot is not None:
            from blowbyblow.cli.plots import plot_odds

            plot_odds(odds, title, plot)
    except BlowByBlowError as e:  # a file that cannot be used: 2, as `bxb record` refuses it
        fail(str(e), 2 if isinstance(e, ScenarioError) else 1)
    if as_json:
        typer.echo(encode_json(odds).decode())
    else:
        print_odds(odds, title)


def _compare(
    at: Situation, versus: list[str], how: HowToExplore, title: str, as_json: bool
) -> None:
    system = at.system
    choices = [(_label(at.command), at.command)]
    for i, text in enumerate(versus, start=1):
        try:
            other: Any = msgspec.json.decode(text.encode(), type=system.command_type)
        except msgspec.DecodeError as e:
            fail(f"--versus (number {i}): not a {system.id} command: {e}", 1)
        choices.append((_label(other), other))
    comparison = compare_odds(at, choices, how)
    if as_json:
        typer.echo(encode_json(comparison).decode())
    else:
        print_comparison(comparison, title)


def _label(command: Any) -> str:
    """A command as its JSON, without its type's defaults: short enough for a column head."""
    return msgspec.json.encode(command).decode()


def _command_json(events: list[Event], text: str) -> Any:
    first = events[0]
    assert isinstance(first, BattleStarted)
    system = get_game_system(first.ruleset)
    try:
        return msgspec.json.decode(text.encode(), type=system.command_type)
    except msgspec.DecodeError as e:
        fail(f"--next: not a {system.id} command: {e}", 1)


def _quick(ruleset: str, sets: list[str], next_action: str | None, command: int) -> Any:
    """The scenario of ``bxb odds --ruleset ID``: the system's demo setup with ``--set`` made,
    and the command ``--next`` gives (else the demo's ``--command``-th action)."""
    try:
        system = get_game_system(ruleset)
    except BlowByBlowError as e:
        fail(f"--ruleset: {e}")
    if next_action is not None:
        try:
            action = msgspec.json.decode(next_action.encode())
        except msgspec.DecodeError as e:
            fail(f"--next: not JSON: {e}")
    else:
        actions = system.demo().commands
        if not 1 <= command <= len(actions):
            fail(f"--command: the {system.id} demo has actions 1 to {len(actions)}, not {command}")
        action = msgspec.to_builtins(actions[command - 1])
    rulings = dict(system.demo().rulings)
    try:
        return quick_scenario(system, None, rulings, action, [parse_set(t) for t in sets])
    except QuickError as e:
        fail(str(e))


def _how(policy: str, answers: dict[str, str], base: HowToExplore) -> HowToExplore:
    if not policy:
        return base
    return dataclasses.replace(base, policy=Policy.parse(policy, answers))


def _from_battle(
    events: list[Event], position: int | None, next_action: str | None, how: HowToExplore | None
) -> Odds:
    if position is not None:
        return recorded_odds(events, position, how)
    assert next_action is not None
    return next_odds(events, _command_json(events, next_action), how)


@app.command("luck")
def cmd_luck(  # noqa: PLR0913 - typer makes each parameter a command-line option
    battles: Annotated[
        list[str] | None,
        typer.Argument(help="Battles (id, id prefix or label); default: the latest."),
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="Every battle in the store.")] = False,
    budget: Annotated[int, typer.Option("--budget", help=BUDGET_HELP)] = DEFAULT_BUDGET,
    samples: Annotated[
        int, typer.Option("--samples", help="Samples per face of a roll past the budget.")
    ] = DEFAULT_LUCK_SAMPLES,
    seed: Annotated[
        str, typer.Option("--seed", help="Seed of the Monte Carlo dice.")
    ] = DEFAULT_SEED,
    rolls: Annotated[bool, typer.Option("--rolls", help="List every roll's luck.")] = False,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot", help="Also draw each side's luck over time into this image (.png, .svg)."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
) -> None:
    """How lucky each side's dice were, over one battle or many (a tournament): each roll's
    luck (the share of its faces that would have left the side worse off), each side's mean,
    z-score, luck percentile and p-value against fair dice."""
    if not 1 <= budget <= MAX_BUDGET or not 1 <= samples <= MAX_LUCK_SAMPLES:
        fail(
            f"--budget must be 1 to {MAX_BUDGET:,} and --samples 1 to {MAX_LUCK_SAMPLES:,}, "
            f"not {budget} and {samples}"
        )
    if every and battles:
        fail("give battles or --all, not both")
    store = open_store()
    if every:
        ids = [b.battle for b in store.battles()]
        if not ids:
            fail("the store holds no battles yet (try `bxb demo`)", 1)
    else:
        ids = [_battle(store, ref) for ref in (battles or [None])]  # type: ignore[list-item]
    logs = [[e.event for e in _events(store, bid)] for bid in ids]
    try:
        luck = luck_of(logs, HowToJudge(budget=budget, samples=samples, seed=seed))
        if plot is not None:
            from blowbyblow.cli.plots import plot_luck

            plot_luck(luck, plot)
    except BlowByBlowError as e:
        fail(str(e), 1)
    if as_json:
        typer.echo(encode_json(luck).decode())
    else:
        print_luck(luck, rolls)


def print_luck(luck: Luck, rolls: bool) -> None:
    console = PipedConsole(highlight=False, soft_wrap=True)
    console.print(
        f"[bold]luck[/bold] over {len(luck.battles)} battle(s): {', '.join(luck.battles)}"
    )
    table = RichTable()
    for name in ("side", "rolls that mattered", "mean luck", "z", "luck percentile", "p-value", ""):
        table.add_column(name)
    for s in luck.sides:
        table.add_row(
            s.side,
            str(s.rolls),
            f"{s.mean_u:.3f} ±{s.standard_error:.3f}",
            f"{s.z:+.2f}",
            f"{s.percentile:.1%}",
            f"{s.p_value:.3f}",
            _bar(s.percentile),
        )
    console.print(table)
    console.print(
        "mean luck is 0.5 with fair dice (± its standard error); the luck percentile is the "
        "share of fair-dice battles that would have been less lucky"
    )
    if rolls:
        per = RichTable(title="every roll", title_justify="left")
        for name in ("command", "position", "roll", "values", "luck per side"):
            per.add_column(name)
        for r in luck.rolls:
            who = ", ".join(
                f"{x.side} {x.u:.2f}" + ("" if x.method == "exact" else "~") for x in r.luck
            )
            per.add_row(
                str(r.command),
                str(r.position),
                r.purpose or r.key,
                " ".join(map(str, r.values)),
                who if r.assessed else "(too many faces to estimate)",
            )
        console.print(per)
