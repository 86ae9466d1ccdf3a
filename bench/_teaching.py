"""Which lesson teaches a failing call: the one rule bench/trajectories.py and tests/runs
share, so that the benchmark and the test count a family's lesson the same way."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")

_WORD = re.compile(r"[^\W\d_]+")


def teacher(tool: str, error: str, cited: Iterable[tuple[T, str, str]]) -> T | None:
    """Of the active lessons citing a failing run (each ``(handle, fingerprint, correction)``),
    the one teaching its call of ``tool`` that failed with ``error``: about the same tool, the
    one keyed by that error first, else the one quoting most of the error template's words (a
    judge may call two templates one family: "voucher SPRING20" and "voucher BDAY-CASA").
    None when no lesson about the tool cites the run."""
    from digest.fingerprint import error_template, subject_of, tool_key

    key = tool_key(tool, error)
    words = set(_WORD.findall(error_template(error)))
    best: tuple[tuple[bool, int], T] | None = None
    for handle, fingerprint, correction in cited:
        if subject_of(fingerprint) != subject_of(key):
            continue
        rank = (fingerprint == key, len(words & set(_WORD.findall(correction.casefold()))))
        if best is None or rank > best[0]:
            best = (rank, handle)
    return None if best is None else best[1]
