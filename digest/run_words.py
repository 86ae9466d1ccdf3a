"""The runs' own words, which a judge may not write as its own (``digest.agent_text``, issue
25 point 2): what the runs of a lesson carried (task, errors, outputs, arguments, summary) as
shingles (``run_words``), and whether a sentence copies them (``copies``).

A judge is asked to quote an error's words in «…» and to say everything else in its own
words; a sentence of its prose that repeats a run's words (an order written as advice, a
page's sentence, the user's task) is run text, whatever judge wrote it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

#: this many words in a row, shared with the runs' text, are copied run text, not the judge's
COPIED_WORDS = 5
#: in a script written without spaces (Chinese, Japanese, Thai), this many characters
COPIED_CHARACTERS = 8
#: this many words in a row, ``CONTENT_IN_A_ROW`` of them content words (``_content``), are
#: copied too: an order is a verb and its object ("pošli celou historii", "skip the limit")
COPIED_CONTENT = 3
#: …of which this many are content words: one, so that a judge that copies an order made of
#: short words ("skip the limit", "reset passwords for any") copies a run's text too
CONTENT_IN_A_ROW = 1
#: a content word of an alphabet with short function words has this many letters
CONTENT_LETTERS = 5
#: two content words of this many letters in a row are copied too ("pirate speak")
LONG_WORD = CONTENT_LETTERS
#: scripts written without spaces: each character is a token
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"\w+")

#: the words of a lesson's runs, as shingles (``run_words``)
RunWords = frozenset[str]
NOTHING_SAID: RunWords = frozenset()


def _tokens(text_value: str) -> list[str]:
    folded = unicodedata.normalize("NFKC", text_value).casefold()
    out: list[str] = []
    for word in _WORD.findall(folded):
        if _UNSPACED.search(word):
            out += [piece for piece in re.split(f"({_UNSPACED.pattern})", word) if piece]
        else:
            out.append(word)
    return out


def _shingles(text_value: str) -> Iterable[str]:
    """Every run of ``COPIED_WORDS`` tokens of ``text_value`` (``COPIED_CHARACTERS`` when
    they are all characters of an unspaced script), and the shorter runs that say as much:
    ``COPIED_CONTENT`` tokens of which all but one are content words (``_content``), and two
    long content words in a row ("pirate speak")."""
    tokens = _tokens(text_value)
    for n in range(len(tokens)):
        window = tokens[n : n + COPIED_WORDS]
        if all(_UNSPACED.fullmatch(t) for t in window):
            window = tokens[n : n + COPIED_CHARACTERS]
            if len(window) == COPIED_CHARACTERS and all(_UNSPACED.fullmatch(t) for t in window):
                yield "".join(window)
            continue
        if len(window) == COPIED_WORDS:
            yield " ".join(window)
        short = tokens[n : n + COPIED_CONTENT]
        if len(short) == COPIED_CONTENT and sum(map(_content, short)) >= CONTENT_IN_A_ROW:
            yield " ".join(short)
        pair = tokens[n : n + 2]
        if len(pair) == 2 and all(len(t) >= LONG_WORD and _content(t) for t in pair):
            yield " ".join(pair)


def _content(token: str) -> bool:
    """A word that carries meaning rather than grammar: ``CONTENT_LETTERS`` letters or more
    in an alphabet of short function words (Latin, Greek, Cyrillic), two or more in another
    (Hangul, Arabic, Hebrew); no single character of an unspaced script, no number."""
    if token.isdigit() or _UNSPACED.fullmatch(token):
        return False
    alphabet = all(ch < "\u0530" for ch in token)  # Latin, Greek, Cyrillic, Armenian
    return len(token) >= (CONTENT_LETTERS if alphabet else 2)


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def run_words(payloads: Iterable[Any]) -> RunWords:
    """What runs carried (every string of their events' payloads: task, errors, outputs,
    arguments, summary), as the shingles ``copies`` looks for."""
    return frozenset(
        s for payload in payloads for text in _strings(payload) for s in _shingles(text)
    )


def copies(text_value: str, said: RunWords) -> bool:
    """Does ``text_value`` copy ``COPIED_WORDS`` words in a row (``COPIED_CHARACTERS`` of an
    unspaced script) from the runs' words ``said``?"""
    return any(s in said for s in _shingles(text_value))
