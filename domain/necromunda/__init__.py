"""Necromunda close combat, as two game systems: ``necromunda-2023``, the Necromunda Core
Rulebook (2023), and ``necromunda-legacy``, the rules before the 2023 Core books (the
Necromunda Rulebook of 2017 and 2018 with the FAQs; the 2017 book's "N17 (improved version)"
variant is a ruling).

One procedure serves both books: each step of the Close Combat sequence is a function of its
own, run under an ``Edition`` that holds where the books differ.
"""
