"""Reading a tool's error for a lesson: what it states, in a few words for the title
(``precondition``), and which argument of the failing call it names (``named_argument``).

Both work on the error's text as data: what they return is quoted by the judge
(``digest.text.quoted``), or, for an argument, used only when the agent itself passed it.
"""

from __future__ import annotations

import re
from typing import Any

from digest import facts
from digest.model.error_families import FAMILIES, Family

#: an error's own label before its message: "Error:", "ValidationError:", "HTTP 409 -"
_LABEL = re.compile(
    r"^\s*(?:[\w.]*(?:error|exception|fault|err)\b|fehler|erreur)\s*[:\-–]\s*", re.I
)
#: where a clause of an error ends, and where a sentence does (a title is one sentence)
_CLAUSE = re.compile(r"[,;:—–]\s|\s[-–]\s|[.!?]\s")
_SENTENCE = re.compile(r"[.!?;]\s")


def without_label(error: str) -> str:
    """The error's message without its label ("Error: order not found" → "order not found")."""
    return _LABEL.sub("", " ".join(str(error).split()), count=1).strip(" .")


def precondition(error: str, family: Family, limit: int) -> str:
    """What the error states, as short as a title needs: the message without its label when
    it fits in ``limit`` characters, else the clause around what the family recognised, or
    that and the rest of its clause, or just that (two words at least); none of them across a
    sentence end; for an error of no family, its first clause or that clause's first words,
    marked cut with "…". When nothing fits, the whole message (the title is then the remedy alone;
    the caller quotes it, and ``digest.text.quoted`` bounds it)."""
    line = without_label(error)
    found = family.pattern.search(line) if family.pattern is not None else None
    shorter = [line]
    if found is not None:
        starts = [m.end() for m in _CLAUSE.finditer(line, 0, found.start())]
        start = starts[-1] if starts else 0
        after = _CLAUSE.search(line, found.end())
        end = after.start() if after else len(line)
        shorter += [line[start:end], line[found.start() : end], line[found.start() : found.end()]]
    else:  # no family to find: its first clause, or that clause's first words
        clause = line[: m.start()] if (m := _CLAUSE.search(line)) else line
        shorter += [clause, _cut(clause, limit)]
    for phrase in shorter:
        phrase = phrase.strip(" .")
        if len(phrase) <= limit and len(phrase.split()) >= 2 and not _SENTENCE.search(phrase):
            return phrase
    return line


def _cut(text: str, limit: int) -> str:
    """``text``'s first words up to ``limit`` characters, "…" marking the cut (or ``text``
    when it fits)."""
    if len(text) <= limit:
        return text
    head = text[: max(0, limit - 1)].rsplit(" ", 1)[0].rstrip(" ,;:")
    return f"{head}…"


#: an argument's name as an error names it: an identifier, quoted or after a word for one
_QUOTED_NAME = re.compile(r"[`'\"«]([A-Za-z_][A-Za-z0-9_.]{0,39})[`'\"»]")
_NAMED = re.compile(
    r"\b(?:field|parameter|param|argument|arg|property|attribute|key|column)s?\s*[:=]?\s*"
    r"([A-Za-z_][A-Za-z0-9_.]{0,39})",
    re.I,
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")
_WORDS = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]{1,39}\b")


def named_argument(error: str, args: Any) -> str | None:
    """The argument of the failing call that the error names, or None.

    Only a name the agent itself passed counts (a top-level key of the call's arguments,
    like the tool's own name): a name that only the error spells is the error's text and
    stays inside its quotation."""
    if not isinstance(args, dict) or not args:
        return None
    keys = {
        str(k).casefold(): str(k)
        for k in args
        if _IDENTIFIER.fullmatch(str(k)) and str(k).count("_") <= 3
    }
    text = str(error)
    for pattern in (_QUOTED_NAME, _NAMED):
        for found in pattern.finditer(text):
            if found.group(1).casefold() in keys:
                return keys[found.group(1).casefold()]
    for found in _WORDS.finditer(text):
        word = found.group(0).casefold()
        if word in keys and ("_" in word or len(word) >= 4):
            return keys[word]
    return None


def state_terms(error: str, family: str) -> frozenset[str] | None:
    """What the error says of the failed state, as ``digest.facts`` terms (stems, one term per
    concept: "out of stock" and "insufficient inventory" both say ``stock``): the words of
    every phrasing the family ``family`` recognised in it, status codes left out; None when
    it recognises none."""
    found = next((f for f in FAMILIES if f.name == family), None)
    if found is None or found.pattern is None:
        return None
    said = [m.group(0) for m in found.pattern.finditer(without_label(error))]
    if not said:
        return None
    # a status code ("401") names the class of error, not what the state is
    return frozenset(t for t in facts.terms(" ".join(said)) if not t.isdigit())
