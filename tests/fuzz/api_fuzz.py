"""Fuzzing the tournament server's command API as a table's device may call it: every game
system's demo started as a whole battle (POST .../battles with its setup and commands), and one
command played in a battle (POST /api/battles/ID/commands), each body mutated. A request is
fine when it is accepted (2xx) or refused with a 4xx answer that writes nothing; a 5xx answer (the
server's traceback) or a hang is a finding."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fuzz_helpers import HANG_SECONDS, Hung, Ran, Tally, time_limit, tree_mutation
from hypothesis import strategies as st
from litestar import Litestar
from litestar.testing import TestClient

from blowbyblow.replay.engine.codec import to_builtins
from blowbyblow.replay.engine.registry import game_systems
from blowbyblow.replay.store.log import BattleStore
from blowbyblow.web.app import create_app
from blowbyblow.web.tournament import TournamentStore

RULESETS = sorted(game_systems())


@dataclass
class Server:
    store: BattleStore
    client: TestClient[Litestar]
    table: dict[str, str]  # the table's bearer header

    def written(self) -> tuple[Any, ...]:
        return tuple((b.battle, self.store.version(b.battle)) for b in self.store.battles())


@contextmanager
def server(folder: Path) -> Iterator[Server]:
    db = str(folder / "site.sqlite")
    store = BattleStore(db)
    tournaments = TournamentStore(db)
    tournaments.new_tournament("spring", "Spring Open")
    tables = tournaments.add_tables("spring", 1)
    with TestClient(create_app(store, tournaments)) as client:
        yield Server(store, client, {"Authorization": f"Bearer {tables.tables[0][1]}"})


def demo_body(ruleset: str) -> dict[str, Any]:
    """A whole battle as a table starts it: the demo's setup, rulings and commands."""
    demo = game_systems()[ruleset].demo()
    body: dict[str, Any] = {
        "ruleset": ruleset,
        "label": demo.label,
        "setup": to_builtins(demo.setup),
        "commands": [to_builtins(c) for c in demo.commands],
        "choices": dict(demo.choices),
    }
    if demo.seed is not None:
        body["seed"] = demo.seed
    else:
        body["dice"] = list(demo.dice or [])
    return body


@dataclass(frozen=True)
class ApiCase:
    name: str
    ruleset: str
    start: dict[str, Any]  # the battle's start (mutated, or as it is)
    play: dict[str, Any] | None  # then one command played in a battle started from its setup


@st.composite
def api_cases(draw: st.DrawFn) -> ApiCase:
    ruleset = draw(st.sampled_from(RULESETS))
    body = demo_body(ruleset)
    if draw(st.booleans()):  # a whole battle's start, mutated
        changes = [draw(tree_mutation(body))(body) for _ in range(draw(st.integers(1, 3)))]
        return ApiCase(f"start {ruleset}: {'; '.join(changes)}", ruleset, body, None)
    command = copy.deepcopy(body["commands"][0])
    play: dict[str, Any] = {"command": command, "choices": {}, "dice": []}
    changes = [draw(tree_mutation(play))(play) for _ in range(draw(st.integers(1, 2)))]
    start = {k: v for k, v in body.items() if k not in ("commands", "dice", "choices")}
    start["seed"] = "fuzz"
    return ApiCase(f"play {ruleset}: {'; '.join(changes)}", ruleset, start, play)


def _post(site: Server, path: str, body: Any) -> tuple[Ran, Any]:
    start = time.perf_counter()
    try:
        with time_limit(HANG_SECONDS):
            # Python's json: NaN, Infinity and any integer, what a hostile device may send
            r = site.client.post(
                path,
                content=json.dumps(body),
                headers={**site.table, "Content-Type": "application/json"},  # as a phone sends
            )
    except Hung:
        return Ran(-1, "", "", hung=True), None
    seconds = time.perf_counter() - start
    crash = r.text[-2000:] if r.status_code >= 500 else None
    code = 0 if r.status_code < 300 else 1
    # a refusal's one line: the answer names what was wrong (its `message`, or a detail)
    said = "error: " + r.text[:200].replace("\n", " ") if code else ""
    return Ran(code, "", said, crash=crash, seconds=seconds), (r.json() if code == 0 else None)


def run_api(case: ApiCase, site: Server, tally: Tally) -> None:
    tally.mutations += 1
    base = "/api/tournaments/spring/tables/1/battles"
    if isinstance(case.start.get("label"), str):  # one battle twice would be refused as such
        case.start["label"] += f" #{tally.mutations}"
    before = site.written()
    ran, answer = _post(site, base, case.start)
    if case.play is None or ran.code != 0 or answer is None:
        tally.add(case.name, ran, site.written() != before)
        return
    battle = answer.get("battle") or answer.get("id")
    before = site.written()
    ran, _ = _post(site, f"/api/battles/{battle}/commands", case.play)
    tally.add(case.name, ran, site.written() != before)
