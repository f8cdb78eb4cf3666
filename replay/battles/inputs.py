"""Dice and choices as requests a front end answers.

A live command asks for dice and choices as the rules reach them. A front end that can answer at
once (``bxb play`` at a terminal) passes its own ``DiceSource`` and ``ChoiceSource``; one that
answers over several requests (the table page) passes what it has so far, ``TypedDice`` and
``GivenChoices``, and gets back a ``Need``: the next die or choice the rules ask for, with
nothing written. When everything is answered, the command is adjudicated and written whole."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

from blowbyblow.replay.engine.dice import ListedDice, ScriptedChoices, check_faces


class Need(msgspec.Struct, kw_only=True):
    """What the rules ask for next, before the command can be adjudicated to its end."""

    kind: Literal["dice", "choice"]
    key: str
    prompt: str
    n: int = 0
    sides: int = 0
    options: list[str] = []
    default: str = ""
    dice_used: int = 0  # dice of earlier rolls already taken from those given
    # a choice's: the questions its default leads to, asked in turn while each default is taken
    # (``replay/battles/pending.py``), up to the next roll or the command's end
    then: list[Need] = []


class NeedAnswer(Exception):
    """Raised inside a procedure's run when the front end has not answered yet."""

    def __init__(self, need: Need) -> None:
        super().__init__(f"{need.kind} {need.key} needs an answer")
        self.need = need


class TypedDice:
    """Physical dice typed in at the table, taken in the order the rules ask for them; when
    they run out, the rules' next roll is asked for (``NeedAnswer``) and nothing is written."""

    source = "physical"

    def __init__(self, values: Sequence[int]) -> None:
        self._listed = ListedDice(values)

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        if self.used + n > self._listed.listed:
            # a die typed so far that this roll's dice never show is refused now, not asked again
            check_faces(key, self._listed.remaining(), sides)
            prompt = f"{purpose or key}: roll {n}D{sides}"
            raise NeedAnswer(
                Need(kind="dice", key=key, n=n, sides=sides, prompt=prompt, dice_used=self.used)
            )
        return self._listed.roll(key, n, sides, purpose)

    def add(self, values: Sequence[int]) -> None:
        """The next dice typed: a roll asked for (``NeedAnswer``) is asked again with them."""
        self._listed.add(values)

    @property
    def used(self) -> int:
        return self._listed.used

    @property
    def unused(self) -> int:
        return self._listed.unused


class GivenChoices(ScriptedChoices):
    """Answers given by key; an unanswered choice is asked (``NeedAnswer``) when ``ask``, or
    takes the rules' default otherwise (as ``bxb record`` does)."""

    def __init__(self, answers: Mapping[str, str], *, ask: bool) -> None:
        super().__init__(answers)
        self._ask = ask

    def choose(
        self, key: str, options: tuple[str, ...], default: str, prompt: str
    ) -> tuple[str, str]:
        short = key.split("/", 1)[1] if "/" in key else key
        if self._ask and key not in self._answers and short not in self._answers:
            raise NeedAnswer(
                Need(
                    kind="choice",
                    key=key,
                    options=list(options),
                    default=default,
                    prompt=prompt or key,
                )
            )
        answer, source = super().choose(key, options, default, prompt)
        return answer, "interactive" if source == "scripted" and self._ask else source

    def add(self, answers: Mapping[str, str]) -> None:
        """More answers: a choice asked for (``NeedAnswer``) is asked again with them."""
        self._answers.update(answers)


def answers_one_of(key: str, asked: Sequence[str]) -> bool:
    """Whether an answer given by ``key`` (full, ``c3/step8``, or short, ``step8``) answers one
    of the questions ``asked`` (full keys), as ``ScriptedChoices`` reads it."""
    return any(key in (full, full.split("/", 1)[-1]) for full in asked)


__all__ = ["GivenChoices", "Need", "NeedAnswer", "TypedDice", "answers_one_of"]
