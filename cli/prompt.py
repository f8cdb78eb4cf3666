"""The completion of ``bxb play``'s prompt, apart from ``cli/play.py`` because it subclasses
prompt_toolkit's ``Completer``: prompt_toolkit is imported when a table is played at a
terminal, not by every ``bxb`` process that registers the ``play`` command (``bxb --help``),
for which it was about a sixth of the time."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document


class CommandCompleter(Completer):
    """Completes the main prompt: the first word from the command types, the offered commands'
    numbers and the session's words; then a command's fields (``targets=``) and, after ``=``,
    the values the rules allow now, as the typed syntax writes them."""

    def __init__(
        self, first: list[str], fields: dict[str, list[str]], values: dict[str, dict[str, set[str]]]
    ):
        self.first = first
        self.fields = fields
        self.values = values

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        before = document.text_before_cursor
        word = document.get_word_before_cursor(WORD=True)
        if " " not in before.lstrip():
            yield from _starting(self.first, word)
            return
        tag = before.split()[0]
        if "=" in word:
            name, _, prefix = word.partition("=")
            yield from _starting(sorted(self.values.get(tag, {}).get(name, ())), prefix)
        else:
            yield from _starting(self.fields.get(tag, []), word)


def _starting(candidates: Iterable[str], prefix: str) -> Iterator[Completion]:
    for c in candidates:
        if c.startswith(prefix):
            yield Completion(c, start_position=-len(prefix))
