"""What verification reports: the first problem found (its position, kind, rule, and the log's
event against what the rules give) and the report of a battle's verification."""

from __future__ import annotations

from dataclasses import dataclass, field
from uuid import UUID

from blowbyblow.domain.core import Event, RuleEvent
from blowbyblow.replay.engine.codec import encode_json, to_builtins


@dataclass(frozen=True)
class Problem:
    position: int
    # unreadable | chain | identity | sequence | seal | setup | dice | choice | rejected | differs
    # | void | file
    kind: str
    message: str
    rule: str = ""
    recorded: str = ""
    expected: str = ""

    def describe(self) -> str:
        text = f"position {self.position}: {self.message}"
        if self.rule:
            text += f" [rule {self.rule}]"
        if self.recorded or self.expected:
            text += f"\n    log says:   {self.recorded}\n    rules give: {self.expected}"
        return text


@dataclass
class Report:
    battle: UUID
    label: str = ""
    ruleset: str = ""
    events: int = 0
    commands: int = 0
    dice_checked: int = 0
    voided: int = 0  # commands voided (each re-adjudicated as played, then left out)
    problem: Problem | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.problem is None


def show_event(event: Event) -> str:
    return encode_json(to_builtins(event)).decode()


def rule_of(event: Event) -> str:
    return event.rule if isinstance(event, RuleEvent) else ""


class Failed(Exception):
    """The first problem found: verification stops there."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def fail_on(problem: Problem | None) -> None:
    if problem is not None:
        raise Failed(problem)
