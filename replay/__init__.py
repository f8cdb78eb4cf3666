"""The engine and what is built on it, in rooms by role (docs/architecture.md):
``engine`` (the driver, dice, codec), ``store`` (the log and its read models), ``evidence``
(verify, export, seals, fair dice, receipts, Merkle), ``odds`` (chance, luck) and ``battles``
(the one front door, ``Battle``)."""
