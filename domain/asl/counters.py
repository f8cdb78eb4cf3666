"""Counters a player picks by what is printed on them, for the setup form: a squad by its
FP-range-morale ("4-6-7", Reduced to the half-squad printed on its back), a leader by his morale
and leadership modifier ("9-1" directs with -1, a "6+1" with +1), a crew. Picking one fills in
the unit's printed values; the player still gives its id, side and Location."""

from __future__ import annotations

from blowbyblow.domain.system import SetupChoice

# squad -> the half-squad it is Reduced to (A7.302), as printed on its back
SQUADS = {
    "4-6-7": "2-4-7",
    "4-6-8": "2-4-8",
    "4-4-7": "2-2-7",
    "6-2-8": "3-2-8",
}
LEADERS = ("10-3", "10-2", "9-2", "9-1", "8-1", "8-0", "7-0", "6+1")
CREWS = ("2-2-8",)


def _squad(name: str) -> SetupChoice:
    fp, _, morale = name.split("-")
    hs = SQUADS[name]
    return SetupChoice(
        label=f"squad {name}",
        value={
            "kind": "squad",
            "name": name,
            "fp": int(fp),
            "morale": int(morale),
            "hs_name": hs,
            "hs_fp": int(hs.split("-")[0]),
        },
    )


def _leader(name: str) -> SetupChoice:
    morale, sign, modifier = name.partition("+") if "+" in name else name.partition("-")
    leadership = int(modifier) if sign == "+" else -int(modifier)
    return SetupChoice(
        label=f"leader {name}",
        value={"kind": "leader", "name": name, "morale": int(morale), "leadership": leadership},
    )


def _crew(name: str) -> SetupChoice:
    fp, _, morale = name.split("-")
    return SetupChoice(
        label=f"crew {name}",
        value={"kind": "crew", "name": name, "fp": int(fp), "morale": int(morale)},
    )


COUNTERS: tuple[SetupChoice, ...] = (
    *(_squad(n) for n in SQUADS),
    *(_leader(n) for n in LEADERS),
    *(_crew(n) for n in CREWS),
)
SETUP_CHOICES = {"units[]": COUNTERS}
