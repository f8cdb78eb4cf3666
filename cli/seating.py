"""Sitting down at a battle for ``bxb play``: starting one from a setup (its actions played first,
with physical, seeded or fair dice) or resuming one where it stands, through the front door
(``Battle``). Fair dice: the commitment is shown, then each side's value is given or asked."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from blowbyblow.cli.app import _battle, fail
from blowbyblow.cli.terminal import (
    Inputs,
    PromptedChoices,
    PromptedDice,
    Screen,
    table_key,
)
from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.battles.battle import Battle
from blowbyblow.replay.battles.head import BattleHead
from blowbyblow.replay.battles.record import AlreadyRecorded
from blowbyblow.replay.engine.dice import (
    DiceSource,
    ListedDice,
    ScriptedChoices,
    SeededDice,
)
from blowbyblow.replay.engine.narrate import narrate
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.engine.scenario import load_scenario
from blowbyblow.replay.evidence.fairness import (
    FairBattle,
    FairnessError,
    FairTerms,
    StartedAndKept,
    check_contributions,
    is_escrowed,
    open_fair,
)
from blowbyblow.replay.evidence.seals import (
    ESCROW_KEY_TAG,
    JudgingError,
    default_key_dir,
    load_escrow_public_key,
)
from blowbyblow.replay.store.log import BattleStore

if TYPE_CHECKING:  # prompt_toolkit is imported when a table is played at a terminal
    pass


@dataclass
class Seat:
    """The battle at this table: the front door it is played through, and its head."""

    door: Battle
    head: BattleHead


def start_battle(
    store: BattleStore,
    setup: Path,
    dice: str | None,
    label: str | None,
    screen: Screen,
) -> tuple[Seat, DiceSource | None]:
    """Record the setup's first event (and its actions, if it has any); the battle and its
    digital dice (None when they are typed)."""
    scenario = _setup(setup, label)
    seed = scenario.seed
    if dice is not None:
        seed = _seed_option(dice)
    physical = seed is None
    scenario = msgspec.structs.replace(
        scenario, seed=seed, dice=scenario.dice if physical else None
    )
    opening: DiceSource | None = None
    if physical:
        opening = ListedDice(scenario.dice) if scenario.dice else PromptedDice(screen, Inputs(), {})
    choices = ScriptedChoices(scenario.choices, fallback=PromptedChoices(screen, Inputs()))
    system = get_game_system(scenario.ruleset)
    door = Battle(store)
    base = scenario.label
    if scenario.commands:
        screen.say(f"the setup's {len(scenario.commands)} action(s) first:")
    for attempt in range(2, 1000):
        try:
            head = door.start(
                scenario,
                dice=opening,
                choices=choices,
                quiet=True,
                observe=lambda event: screen.say(narrate(system, event)),
            )
            break
        except AlreadyRecorded:
            scenario = msgspec.structs.replace(scenario, label=f"{base} #{attempt}")
    else:  # pragma: no cover
        raise BlowByBlowError("too many battles with this label in the store")
    screen.say(f"started battle {head.id} ({scenario.label!r}) under {head.system.id}")
    return Seat(door, head), None if physical else SeededDice(str(seed))


def _setup(setup: Path, label: str | None) -> Any:
    scenario = load_scenario(setup, needs_actions=False)
    return msgspec.structs.replace(scenario, label=label) if label else scenario


def _seed_option(dice: str) -> str | None:
    """``--dice``: ``physical`` (None) or ``seed:TEXT``."""
    if dice == "physical":
        return None
    if dice.startswith("seed:") and dice[5:]:
        return dice[5:]
    fail(f"--dice: expected physical or seed:TEXT, not {dice!r}")


# --- fair dice -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fair:
    """What ``--fair`` and its options give: the judges' escrow keys (to start a battle), the
    contributions given on the command line, and the judge's private key given with ``--key``
    (to resume from the escrow rather than the table's copy of the seed)."""

    judge_keys: list[str]
    given: dict[str, str]
    key: Ed25519PrivateKey | None
    asked: bool = True  # --fair or --contribution given (not only --key, which signs receipts too)


def escrow_keys(judge_keys: list[str] | None) -> list[str]:
    """``--judge-key``: escrow public keys, checked (default: ``judge.escrow.pub`` in the key
    folder, when there)."""
    default = default_key_dir() / "judge.escrow.pub"
    if not judge_keys and not default.exists():
        fail(
            f"--fair: no judge's escrow key at {default}; give --judge-key FILE (a judge's "
            "NAME.escrow.pub, made by `bxb keys new`) or --judge-key x25519:HEX"
        )
    try:
        return [ESCROW_KEY_TAG + load_escrow_public_key(k) for k in judge_keys or [str(default)]]
    except BlowByBlowError as e:
        fail(f"--judge-key: {e}")


def contribution_option(pairs: list[str] | None) -> dict[str, str]:
    """``--contribution SIDE=VALUE``, repeatable: one value per side."""
    given: dict[str, str] = {}
    for pair in pairs or []:
        side, sep, value = pair.partition("=")
        if not sep or not side.strip():
            fail(f"--contribution: expected SIDE=VALUE such as Orks=waaagh, not {pair!r}")
        if side.strip().casefold() in {s.casefold() for s in given}:
            fail(f"--contribution: {side.strip()} given twice; a side gives one value")
        given[side.strip()] = value
    return given


def asker(screen: Screen) -> Any:
    """The players' contributions asked at the prompt, once the commitment is shown."""

    def ask(fair: FairBattle) -> dict[str, str]:
        screen.say(
            f"fair battle {fair.battle}: the table's secret seed is committed: {fair.commitment}"
        )
        screen.say("Each side now gives a value of its own (a word, a number, a phrase); the")
        screen.say("dice depend on every one, and on the seed above, kept secret until the seal.")
        asked: dict[str, str] = {}
        for side in fair.missing:
            while True:
                text = screen.ask(f"{side}'s contribution: ")
                try:
                    asked.update(check_contributions(fair.sides, {side: text}, fair.contributions))
                    break
                except FairnessError as e:
                    screen.say(f"  not accepted: {e}")
        return asked

    return ask


def show_fair(screen: Screen, fair: FairBattle) -> None:
    screen.say(f"fair dice: seed committed {fair.commitment}")
    screen.say("  contributions: " + ", ".join(f"{s}={v!r}" for s, v in fair.contributions.items()))
    screen.say(
        "  the dice are drawn from the seed and every contribution; `bxb seal` (the judge's "
        "key) reveals the seed, then `bxb verify` recomputes every die"
    )


def start_fair_battle(
    store: BattleStore, setup: Path, label: str | None, fair: Fair, screen: Screen
) -> tuple[Seat, DiceSource]:
    """Start a fair battle: its commitment and escrow written, then each side's value (given, or
    asked once the commitment is shown); then the setup's actions, if any, all or none."""
    scenario = _setup(setup, label)
    if scenario.seed is not None or scenario.dice:
        screen.say("(the setup's own dice are not used: fair dice are drawn from a new seed)")
    terms = FairTerms(judge_keys=fair.judge_keys, contributions=fair.given, ask=asker(screen))
    door = Battle(store)
    started = door.start_fair(scenario, terms)
    screen.say(
        f"started fair battle {started.battle} ({scenario.label!r}) under {scenario.ruleset}"
    )
    show_fair(screen, started)
    dice = started.dice()
    head = door.read(started.battle)
    if scenario.commands:
        head = _opening(door, head, scenario, dice, screen)
    return Seat(door, head), dice


def _opening(
    door: Battle, head: BattleHead, scenario: Any, dice: DiceSource, screen: Screen
) -> BattleHead:
    """A fair battle's setup actions, adjudicated with its dice: written if every one is legal
    with them (planned for other dice, they may not be), none otherwise; play goes on live."""
    screen.say(f"the setup's {len(scenario.commands)} action(s) first:")
    try:
        return door.opening(
            head,
            scenario.commands,
            dice=dice,
            choices=ScriptedChoices(scenario.choices, fallback=PromptedChoices(screen, Inputs())),
            observe=lambda event: screen.say(narrate(head.system, event)),
        )
    except (KeyboardInterrupt, EOFError):
        raise StartedAndKept(
            head.id, "its setup's actions were abandoned, nothing of them written"
        ) from None
    except BlowByBlowError as e:
        screen.say(
            f"the setup's actions are not played (they were planned for other dice: {e}); "
            "nothing of them was written, the battle goes on from its start"
        )
        return head


def _resume_fair(seat: Seat, fair: Fair, screen: Screen) -> DiceSource:
    """A fair battle picked up again: its seed from the table's copy, or with the judge's key
    (``--key``, or the key folder's when the table kept none) from the escrow; the sides that
    have not given their value yet are asked now."""
    store, head = seat.door.store, seat.head
    if not is_escrowed(head.started.dice):
        raise FairnessError(
            f"battle {head.id} rolls fair dice of an older kind (no escrow); "
            "`bxb play` resumes fair battles started with `bxb play --fair`"
        )
    default = table_key(None)
    try:
        if fair.key is not None:
            opened = open_fair(store, head.id, key=fair.key)
        else:
            try:
                opened = open_fair(store, head.id)
            except FairnessError:
                if default is None:
                    raise FairnessError(
                        f"the seed of fair battle {head.id} is not kept on this machine; "
                        "give the judge's key (--key FILE) to open the copy escrowed in the store"
                    ) from None
                opened = open_fair(store, head.id, key=default)
    except JudgingError as e:
        raise FairnessError(f"--key: {e}") from None
    if opened.missing or not opened.contributions:
        given = check_contributions(opened.sides, fair.given, opened.contributions)
        still = [s for s in opened.missing if s not in given]
        if still:
            opened.contributions.update(given)
            given.update(asker(screen)(opened))
        seat.door.contribute(head.id, given)
        opened.contributions.update(given)
    elif fair.given:
        raise FairnessError(f"every side of battle {head.id} has given its contribution already")
    show_fair(screen, opened)
    return opened.dice()


def resume_battle(
    store: BattleStore, ref: str, dice: str | None, fair: Fair | None, screen: Screen
) -> tuple[Seat, DiceSource | None]:
    """Pick a battle up where it stands; its dice stay as they were started (the battle and
    its digital dice, None when they are typed). ``fair``: --fair was given (with its
    contributions and key)."""
    door = Battle(store)
    named = _battle(store, ref)
    chain = door.disputes.chain(named)
    if len(chain) > 1:  # a judge forked it: the table goes on in the child
        screen.say(
            f"battle {named} was superseded by battle {chain[-1]} (a judge forked it): "
            "going on there"
        )
    head = door.read(chain[-1])
    if head.sealed:
        raise BlowByBlowError(f"battle {head.id} is sealed; nothing more can be played in it")
    spec = head.started.dice
    started = {"physical": "physical dice", "seeded": f"seeded dice (seed {spec.seed})"}.get(
        spec.mode, f"{spec.mode} dice"
    )
    if dice is not None and (spec.mode == "fair" or _seed_option(dice) != spec.seed):
        fail(
            f"--dice {dice}: battle {head.id} was started with {started}; "
            "a battle keeps its dice (leave --dice out to resume)"
        )
    if fair is not None and fair.asked and spec.mode != "fair":
        option = "--fair" if not fair.given else "--contribution"
        fail(f"{option}: battle {head.id} was started with {started}; a battle keeps its dice")
    screen.say(
        f"resuming battle {head.id} ({head.started.label!r}): {head.commands} "
        f"command(s) played, {head.version} events"
    )
    recent = [e for e in head.events if e.position > 1][-3:]
    for logged in recent:
        screen.say(f"{logged.position:>5}  {narrate(head.system, logged.event)}")
    seat = Seat(door, head)
    rolled: DiceSource | None = None
    if spec.mode == "seeded":
        rolled = SeededDice(str(spec.seed))
    elif spec.mode == "fair":
        rolled = _resume_fair(seat, fair or Fair([], {}, None), screen)
        seat.head = door.read(head.id)
    elif spec.mode != "physical":
        raise BlowByBlowError(f"battle {head.id} rolls {spec.mode} dice; `bxb play` cannot")
    return seat, rolled


def fair_option(
    fair: bool,
    starting: bool,
    judge_key: list[str] | None,
    contribution: list[str] | None,
    key: Ed25519PrivateKey | None,
) -> Fair | None:
    """--fair and its options, checked before anything is read or written. Resuming, the
    battle says whether it is fair: --contribution (its sides still missing) and --key (the
    judge's, to open its escrow) need no --fair."""
    if starting:
        if not fair:
            if judge_key or contribution:
                fail("--judge-key and --contribution go with --fair")
            return None
        return Fair(escrow_keys(judge_key), contribution_option(contribution), None)
    if judge_key:
        fail("--judge-key: a started battle keeps the escrow it was started with")
    if not (fair or contribution or key):
        return None
    return Fair([], contribution_option(contribution), key, asked=bool(fair or contribution))


__all__ = ["Fair", "Seat", "fair_option", "resume_battle", "start_battle", "start_fair_battle"]
