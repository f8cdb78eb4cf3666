"""Rosters kept for an event: reading and writing roster files (the project's own TOML and JSON
format, docs/rosters.md), importing BattleScribe rosters (``.ros``, ``.rosz``), and the register
of each tournament's rosters with their edits between rounds, kept in the store's database.

It imports only the domain, the engine (the game systems' registry) and the store's settings;
``bxb roster`` and the server both use it. Nothing here decides a rule."""
