"""What an error family is: a class of errors, the phrasings that show it, and the rules' own
answer to it (``digest.model.error_families`` lists them, in the order they are tried)."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    """A class of errors and the rules' own answer to it."""

    #: its tag: what the lesson is about (``out-of-stock``, ``not-found`` …)
    name: str
    pattern: re.Pattern[str] | None
    #: an imperative clause, the lesson's title: short, with no comma, colon or parenthesis
    remedy: str
    #: when the situation applies ("an item may be out of stock"); None: whenever it is called
    when: str | None
    #: what to do about it, one sentence
    advice: str
    #: the remedy naming the argument the error names (``{arg}``), when there is one
    remedy_for: str | None = None


def any_of(*phrasings: str) -> re.Pattern[str]:
    """One case-blind pattern that finds any of ``phrasings``."""
    return re.compile("|".join(f"(?:{p})" for p in phrasings), re.IGNORECASE)
