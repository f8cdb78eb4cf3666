"""The registry of game systems. Each module in this package binds one system and exports
``RULESET``; they are found by listing the package, so adding a system edits no shared file."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.ruleset import Ruleset


class UnknownRuleset(BlowByBlowError):
    pass


@cache
def all_rulesets() -> dict[str, Ruleset]:
    found: dict[str, Ruleset] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        ruleset = getattr(module, "RULESET", None)
        if isinstance(ruleset, Ruleset):
            if ruleset.id in found:
                raise RuntimeError(f"two modules define ruleset {ruleset.id!r}")
            found[ruleset.id] = ruleset
    return found


def get_ruleset(ruleset_id: str) -> Ruleset:
    rulesets = all_rulesets()
    try:
        return rulesets[ruleset_id]
    except KeyError:
        raise UnknownRuleset(
            f"unknown ruleset {ruleset_id!r}; known: {', '.join(sorted(rulesets))}"
        ) from None
