"""Counters a player picks by what is printed on them, for the setup form: a squad by its
FP-range-morale ("4-6-7", Reduced to the half-squad printed on its back), a leader by his morale
and leadership modifier ("9-1" directs with -1, a "6+1" with +1), a crew. Picking one fills in
the unit's printed values; the player still gives its id, side and Location.

Support weapons are picked by the name printed on the counter (A9 machine guns, A22 flamethrowers,
A23 demolition charges, C13 light anti-tank weapons). Their Portage Points are not in the texts
these rules were written from: the player types them (``sw_portage``), or they weigh nothing.

Vehicles are the ones chapter A11's examples play, with only the values those examples give
(the T-34/85's 4 FP CMG, the PzIVH's, PzIVJ's and PzV's 5 FP CMG). A value the examples do not
give is left empty for the player to type from the counter: the T-34's CMG, and the sN Usage
Number of the PzIVJ and PzV (A11.622), which the setup then refuses until it is typed."""

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
# The support weapons a unit may possess (``units[].sws``), by their counters' names.
SUPPORT_WEAPONS = ("LMG", "MMG", "HMG", "FT", "DC", "ATR", "BAZ", "PSK", "PIAT")


def _vehicle(name: str, label: str, **values: int | None) -> SetupChoice:
    return SetupChoice(label=f"{name} ({label})", value={"name": name, **values})


# Each value from an example of A11 (see the module's docstring); None: to be typed.
VEHICLES: tuple[SetupChoice, ...] = (
    _vehicle("T-34", "type its CMG from the counter", cmg=None),
    _vehicle("T-34/85", "CMG 4, A11.52 EX", cmg=4),
    _vehicle("PzIVH", "CMG 5, A11.52 EX", cmg=5),
    _vehicle(
        "PzIVJ", "CMG 5, A11.622 EX; type its sN Usage Number", cmg=5, close_defense_usage=None
    ),
    _vehicle("PzV", "CMG 5, A11.52 EX; type its sN Usage Number", cmg=5, close_defense_usage=None),
)

SETUP_CHOICES = {
    "units[]": COUNTERS,
    "units[].sws[]": tuple(SetupChoice(label=n, value=n) for n in SUPPORT_WEAPONS),
    "vehicles[]": VEHICLES,
}
