"""Events the engine itself records about a battle (not rule steps): placeholders for the
judges' toolkit are kept out; this module lists the engine's own event types."""

from __future__ import annotations

from blowbyblow.domain.core import Event

JUDGE_EVENT_TYPES: tuple[type[Event], ...] = ()
