"""Every demo command's odds, hashed: what a change to the odds engine must leave as it was.

    python benchmarks/odds_hash.py [--with-runs]

For each game system's demo, each command's odds are worked out twice (the scenario's, its
choices as the demo scripts them, and the record's, as the viewer asks them), with a budget of
2,000 runs and 1,000 samples past it, and each answer's ``repr`` hashed. A line a command
(system, command, the two methods and runs, and the two answers' hash), then ``ALL`` and the
hash of every answer. By default the runs and the note are left out of what is hashed, so a
change that explores fewer runs to the same answer hashes alike (``--with-runs`` keeps them:
the earlier sittings' form). Run it in two checkouts, each with its own interpreter, and under
two values of ``PYTHONHASHSEED``: equal ``ALL`` lines mean the same answers, fraction for
fraction, samples included (they are seeded)."""

from __future__ import annotations

import argparse
import hashlib
import re

from blowbyblow.replay.engine.registry import game_systems
from blowbyblow.replay.engine.script import play
from blowbyblow.replay.odds.explore import HowToExplore, Policy, recorded_odds, scenario_odds

_RUNS_AND_NOTE = re.compile(r"runs=\d+|note=('[^']*'|\"[^\"]*\")")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--with-runs", action="store_true", help="hash the runs and note too")
    args = ap.parse_args()

    def shown(answer: object) -> bytes:
        text = repr(answer)
        return (text if args.with_runs else _RUNS_AND_NOTE.sub("", text)).encode()

    everything = hashlib.sha256()
    for system in sorted(game_systems().values(), key=lambda s: s.id):
        demo = system.demo()
        events = play(demo).events
        starts = [i + 1 for i, e in enumerate(events) if type(e).__name__ == "CommandIssued"]
        for n, start in enumerate(starts, 1):
            scripted = Policy(name="scripted", answers=demo.choices)
            scenario = scenario_odds(
                demo, n, HowToExplore(policy=scripted, budget=2000, samples=1000)
            )
            record = recorded_odds(events, start, HowToExplore(budget=2000, samples=1000))
            for answer in (scenario, record):
                everything.update(shown(answer))
            both = hashlib.sha256(shown(scenario) + shown(record)).hexdigest()[:12]
            print(
                system.id,
                n,
                scenario.method,
                record.method,
                scenario.runs,
                record.runs,
                both,
                flush=True,
            )
    print("ALL", everything.hexdigest())


if __name__ == "__main__":
    main()
