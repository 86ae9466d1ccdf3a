"""Lesson text compared: normalisation and the two rapidfuzz scores every similarity decision
uses (neighbour search, the fast path, the offline judge, compaction).

- ``relevance`` (token-set ratio): how much the two lessons talk about the same thing; a
  paraphrase or an enrichment scores high;
- ``identity`` (plain ratio of normalised text): how nearly the same words they are; only a
  re-submission or a trivial rewording scores ≥ 0.95.
"""

from __future__ import annotations

import re
import unicodedata

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

_PUNCT = re.compile(r"[^\w\s]+")


NEGATION = re.compile(
    r"\b(never|not|no longer|don't|do not|doesn't|does not|stop|cannot|can't)\b", re.IGNORECASE
)


def negation_flipped(a: str, b: str) -> bool:
    """One text negates and the other does not ("always X" / "never X"): however alike their
    words, they are not the same lesson."""
    return bool(NEGATION.search(a)) != bool(NEGATION.search(b))


def normalise(text_value: str) -> str:
    """Lowercase, punctuation removed, whitespace collapsed."""
    return " ".join(_PUNCT.sub(" ", text_value.lower()).split())


def lesson_text(situation: str, correction: str) -> str:
    """The text two lessons are compared by (what it applies to, and what to do)."""
    return f"{situation} {correction}"


def score(candidate_text: str, lesson_text_value: str) -> tuple[float, float]:
    """(relevance, identity) of two lesson texts, each in 0..1."""
    return score_normalised(normalise(candidate_text), normalise(lesson_text_value))


def score_normalised(a: str, b: str) -> tuple[float, float]:
    if not a or not b:
        return 0.0, 0.0
    return fuzz.token_set_ratio(a, b) / 100.0, fuzz.ratio(a, b) / 100.0


def edit_metrics(original: str, final: str | None) -> tuple[int, float]:
    """Levenshtein distance and normalised ratio (0 = unchanged, 1 = rewritten or rejected)."""
    if final is None:
        return len(original), 1.0
    distance = Levenshtein.distance(original, final)
    return distance, round(Levenshtein.normalized_distance(original, final), 4)


# --- run text quoted in an untrusted lesson (issue 12) ----------------------------------------

#: at most this many characters of run text are quoted in one place of an untrusted lesson
QUOTE_MAX = 160
OPEN_QUOTE, CLOSE_QUOTE = "«", "»"
#: characters a quotation may not carry: its own delimiters, tag brackets (no ``<system>``, no
#: contract tag), backticks (no code span) and square brackets (no markdown link or image)
_QUOTE_SAFE = str.maketrans({"«": "‹", "»": "›", "<": "‹", ">": "›", "`": "'", "[": "(", "]": ")"})
_QUOTED_SPAN = re.compile(f"{OPEN_QUOTE}[^{CLOSE_QUOTE}]*{CLOSE_QUOTE}")
#: a tool's name as agents name tools: an identifier (dots, colons, slashes, dashes and a few
#: spaces allowed), not a sentence
_TOOL_NAME = re.compile(r"[A-Za-z_][\w .:/-]{0,63}", re.ASCII)


#: destinations in quoted run text: an agent learns that a delivery failed without being
#: handed the address a stranger's text named
DESTINATION = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|\b(?:https?|ftp|wss?)://\S+|\bwww\.[\w-]+\.\S+"
    r"|\+\d{1,3}[\d ()-]{6,}\d"
    r"|\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b"
)


def destination_placeholder(match: re.Match[str]) -> str:
    """What a ``DESTINATION`` match becomes: ``‹address›``, ``‹url›`` or ``‹number›``."""
    found = match.group(0)
    if "@" in found:
        return "‹address›"
    if "://" in found or found.lower().startswith("www."):
        return "‹url›"
    return "‹number›"


def quoted(text_value: str, limit: int = QUOTE_MAX) -> str:
    """``text_value`` as a bounded, escaped quotation of observed data: «…».

    Control and format characters (zero-width, bidi overrides, tag characters) are dropped,
    whitespace is collapsed, e-mail addresses, URLs, phone and account numbers become
    ``‹address›``, ``‹url›`` and ``‹number›``, the characters in ``_QUOTE_SAFE`` are replaced,
    and the text is cut at ``limit`` characters. Nothing inside can end the quotation, render
    as markup, or hand the agent a destination."""
    kept = "".join(
        ch if unicodedata.category(ch) not in ("Cc", "Cf", "Co", "Cs") else " " for ch in text_value
    )
    flat = DESTINATION.sub(destination_placeholder, " ".join(kept.split())).translate(_QUOTE_SAFE)
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return f"{OPEN_QUOTE}{flat}{CLOSE_QUOTE}"


def observed(text_value: str) -> str:
    """What a lesson reports of the world: its «…» quotations (the run's own words, as data)
    joined by newlines when it has any, else all of it. A lesson worded from a template
    (the offline judge's "Do not retry it", "instead of guessing") states its advice in
    fixed words that say nothing about what changed; its quotations do."""
    quotes = [span[1:-1] for span in _QUOTED_SPAN.findall(text_value)]
    return "\n".join(quotes) if quotes else text_value


def without_quotes(text_value: str) -> str:
    """``text_value`` with every «…» quotation removed: the lesson's own words."""
    return _QUOTED_SPAN.sub(" ", text_value)


def is_tool_name(name: str) -> bool:
    """Does ``name`` read as a tool's name (an identifier of at most four words)?"""
    return bool(_TOOL_NAME.fullmatch(name)) and len(name.split()) <= 4


def tool_label(name: str) -> str:
    """How a lesson names a tool: `name` in backticks, or quoted when it is not a name."""
    return f"`{name}`" if is_tool_name(name) else quoted(name, 60)
