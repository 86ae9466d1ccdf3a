"""How much of an error an agent may read: its label and the words next to what failed
(``digest.agent_masks.error_template``, issue 25 point 2).

An error's text is written by whoever answered the tool: a page, a proxy, a forged reply. What
it says after it has said what failed, or far before, is not the failure, and a clause of free
text is room for an order. So a template keeps, of the error's first sentence:

- its label, when it has one ("Error:", "ValidationError:", "404 Not Found:", "Fehler:"): at
  most ``LABEL_WORDS`` words before a colon that read as an error by themselves;
- of the message, the clause that says what failed: the shortest run of clauses, from the
  start, that reads as an error, a clause ending at a comma, semicolon, colon, a spaced dash
  or a bracket (``CLAUSE_END``);
- of that clause, only ``BEFORE`` words before the failure's word and ``AFTER`` after it
  (placeholders such as ``‹id›`` are not words), "…" marking a cut; a labelled message with
  no failure's word of its own keeps its first ``LABELLED`` words.

In a script written without spaces (Chinese, Japanese, Thai) two characters count as a word.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from digest.agent_words import error_shaped, failure_span

#: words of an error's label before its colon
LABEL_WORDS = 3
#: words of the failing clause kept before the failure's word, and after it
BEFORE = 4
AFTER = 3
#: words kept of a labelled message that has no failure's word of its own
LABELLED = 4

_LABEL = re.compile(r"^\s*(?P<label>[^\s:：][^:：\n]{0,39}?)\s*[:：]\s*(?=\S)")
#: where a clause of an error ends (not inside "1,000", "v1.2" or "re-try")
CLAUSE_END = re.compile(
    r"(?<=[,;:])\s+|(?<=[,;:])(?=[\u3040-\u9fff\uac00-\ud7af\u0e00-\u0e7f])|(?<=[，；：、])\s*|\s+[-–—]+\s+|\s*[–—]\s*|\s*[(\[{]\s*|\s*[)\]}]\s*"
)
_UNSPACED = "\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: a word: two characters of an unspaced script, or a run of other non-space characters
_WORD = re.compile(rf"[{_UNSPACED}]{{1,2}}|[^\s{_UNSPACED}]+")
#: a placeholder a mask left ("‹id›", "‹value›", "***"): not a word the error's author chose
_PLACEHOLDER = re.compile(r"(?:‹[a-z]+›|<[a-z]+>|\*\*\*)[.,;:]?")


def quotable(statement: str, mask: Callable[[str], str]) -> str:
    """The part of an error's first sentence an agent may read, masked by ``mask``."""
    label, message = _split_label(statement)
    clause = failing_clause(message)
    if label is None:
        return _near_failure(mask(clause))
    if not error_shaped(clause):
        clause = CLAUSE_END.split(message, maxsplit=1)[0]
    sep = label[len(label.rstrip()) :] or ""
    return f"{mask(label.rstrip())}{sep}{_near_failure(mask(clause))}"


def _split_label(statement: str) -> tuple[str | None, str]:
    """The error's label with its colon ("Error: "), and its message; no label when what
    stands before the first colon is longer than a label or does not read as an error."""
    found = _LABEL.match(statement)
    if found is None:
        return None, statement
    if len(found["label"].split()) > LABEL_WORDS or not error_shaped(found["label"]):
        return None, statement
    return statement[found.start("label") : found.end()], statement[found.end() :]


def failing_clause(message: str) -> str:
    """``message`` up to the end of the first clause by which it reads as an error ("Error:
    the order is missing, share …" → "Error: the order is missing"); all of it when none."""
    ends = [m for m in CLAUSE_END.finditer(message) if m.start() > 0]
    for end in ends:
        head = message[: end.start()].rstrip(" ,;:，；：、")
        if error_shaped(head):
            return head
    return message


def _near_failure(clause: str) -> str:
    """``clause`` cut to ``BEFORE`` words before its failure's word and ``AFTER`` after it;
    with no failure's word, to its first ``LABELLED`` words."""
    words = list(_WORD.finditer(clause))
    if not words:
        return clause
    span = failure_span(clause)
    if span is None:
        first, last = 0, _index_after(words, 0, LABELLED) - 1
    else:
        at = next(n for n, w in enumerate(words) if w.end() > span[0])
        upto = next((n for n, w in enumerate(words) if w.start() >= span[1]), len(words))
        first = _index_before(words, at, BEFORE)
        last = _index_after(words, upto, AFTER) - 1
    text = clause[words[first].start() : words[last].end()]
    head = "…" if first > 0 else ""
    tail = "…" if last < len(words) - 1 else ""
    return f"{head}{text}{tail}"


def _counts(word: re.Match[str]) -> bool:
    return not _PLACEHOLDER.fullmatch(word.group(0))


def _index_before(words: list[re.Match[str]], at: int, room: int) -> int:
    """Where the ``room`` counted words before index ``at`` begin."""
    first = at
    while first > 0:
        if _counts(words[first - 1]):
            if room == 0:
                break
            room -= 1
        first -= 1
    return first


def _index_after(words: list[re.Match[str]], start: int, room: int) -> int:
    """One past the ``room`` counted words from index ``start``."""
    end = start
    while end < len(words):
        if _counts(words[end]):
            if room == 0:
                break
            room -= 1
        end += 1
    return end
