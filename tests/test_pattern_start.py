"""digest.pattern_start: a large alternation searched faster, with the same answers.

``with_start_check`` must find exactly the matches of the pattern (where, how long); and
``for_existence`` must match somewhere exactly when the pattern does. Both are checked on the
patterns the worker uses them for (reversal markers, error families, the screen's whole-view
checks) over strings of the quality benchmark's cases and of the tests of what they read, and
on constructs chosen to trip a naive reading (sets holding "|" or ")", escapes, lookbehinds,
optional heads, case folds)."""

from __future__ import annotations

import ast
import json
import re
from functools import lru_cache
from pathlib import Path

import pytest

from digest import reversal
from digest.model import error_families
from digest.pattern_start import for_existence, start_chars, with_start_check
from digest.reflect import markers, screen

ROOT = Path(__file__).resolve().parent.parent
#: the tests whose strings are reversals, tool errors and injections, beside ordinary text
SOURCES = (
    "test_reversal.py", "model/test_error_families.py", "model/test_error_shapes.py",
    "model/test_reported_changes.py", "injection_corpus.py", "test_adversarial.py",
    "test_facts.py", "reflect/test_views.py",
)  # fmt: skip


@lru_cache(maxsize=1)
def corpus() -> tuple[str, ...]:
    """A third of the strings of bench/data/quality's cases and of the tests of what the
    patterns read (``SOURCES``), each once."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted((ROOT / "bench" / "data" / "quality").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                walk(json.loads(line))
    for path in [ROOT / "tests" / name for name in SOURCES]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.append(node.value)
    # every third (the test reads each text with each pattern three times)
    return tuple(dict.fromkeys(found))[::3]


def used_patterns() -> list[tuple[str, re.Pattern[str]]]:
    found = [("reversal markers", reversal._MARKER), ("attack word", screen._ATTACK_WORD)]
    found += [("destructive", markers.DESTRUCTIVE), ("command", markers.COMMAND)]
    found += [(reason, pattern) for reason, pattern in markers.MARKERS]
    found += [(f.name, f.pattern) for f in error_families.FAMILIES if f.pattern is not None]
    return found


@pytest.mark.parametrize(("name", "pattern"), used_patterns(), ids=lambda v: str(v)[:40])
def test_the_patterns_in_use_answer_as_their_own(name: str, pattern: re.Pattern[str]) -> None:
    texts = corpus()
    assert len(texts) > 2500
    found = for_existence(pattern)
    checked = with_start_check(pattern)
    hits = 0
    for text in texts:
        expected = pattern.search(text)
        hits += expected is not None
        assert (found.search(text) is not None) == (expected is not None), (name, text)
        got = checked.search(text)
        assert (got and got.span()) == (expected and expected.span()), (name, text)
    # the corpus exercises the pattern both ways (families too rare in it are skipped)
    if name in ("reversal markers", "attack word"):
        assert 0 < hits < len(texts)


def test_the_regrouped_patterns_are_not_the_originals() -> None:
    """The change is real: the worker's patterns are regrouped (or a start check added)."""
    assert for_existence(reversal._MARKER).pattern != reversal._MARKER.pattern
    assert for_existence(markers.DESTRUCTIVE).pattern != markers.DESTRUCTIVE.pattern
    assert reversal.states_reversal("This endpoint is no longer supported")
    assert not reversal.states_reversal("The endpoint answered 200")


TRICKY = [
    # (pattern, flags, texts that must get the pattern's own answer)
    (r"ab|a[|)]c|a\|d|(?:x|y)z", re.I, ["a|c", "a)c", "a|d", "yz", "ac", "A|D", "xz", "ab"]),
    (r"(?<!\w)no|(?<=x)yes|\bnot\b", re.I, ["ano", "no", "xyes", "yes", "knot", "not"]),
    (r"a?bc|d*ef|(?:gh)?ij", re.I, ["bc", "abc", "ef", "ddef", "ij", "ghij", "xyz"]),
    (r"[]a]b|[^x]y|\d+z", re.I, ["]b", "ab", "xy", "ay", "12z", "z"]),
    (
        r"(?:has|have) no (?:plan|account)|(?:a|b)+c",
        re.I,
        ["have no plan", "has no account", "abac", "c"],
    ),
    # case folds re reads specially: long s, Kelvin sign, dotted capital I
    (r"sk|is|ki", re.I, ["\u017fk", "\u212a", "s\u212a", "\u0130s", "\u0131s", "IS"]),
    (r"café|straße", re.I, ["CAFÉ", "STRASSE", "STRAẞE", "cafe"]),
    (r"x|", re.I, ["", "y"]),  # may match the empty string: left as it is
]


@pytest.mark.parametrize(("source", "flags", "texts"), TRICKY, ids=lambda v: str(v)[:30])
def test_constructs_that_could_trip_the_regrouping(
    source: str, flags: int, texts: list[str]
) -> None:
    pattern = re.compile(source, flags)
    found, checked = for_existence(pattern), with_start_check(pattern)
    for text in texts + [f"-- {t} --" for t in texts]:
        expected = pattern.search(text)
        assert (found.search(text) is not None) == (expected is not None), text
        got = checked.search(text)
        assert (got and got.span()) == (expected and expected.span()), text


def test_start_chars_reads_the_first_character_or_gives_up() -> None:
    assert start_chars(re.compile(r"\bno|(?<!x)ya?|[bc]d")) == frozenset("nybc")
    assert start_chars(re.compile(r"a?b*c")) == frozenset("abc")
    assert start_chars(re.compile(r"\S+ plus|no")) is None  # any character may start it
    assert start_chars(re.compile(r"a*")) is None  # may be empty
    assert start_chars(re.compile(r"(?-i:a)b", re.I)) is None  # flags changed inside
    # nothing to gain or not safe: the pattern itself comes back
    one = re.compile(r"\bexfiltrate\b", re.I)
    assert for_existence(one) is one
    verbose = re.compile(r"a | b", re.X)
    assert for_existence(verbose) is verbose
    backref = re.compile(r"(a)\1|b")
    assert for_existence(backref) is backref


def test_built_once_builds_on_first_call_or_on_build_all() -> None:
    from digest import pattern_start

    calls: list[int] = []

    @pattern_start.built_once
    def build() -> re.Pattern[str]:
        calls.append(1)
        return re.compile("x")

    try:
        assert calls == []  # not on import
        pattern_start.build_all()
        assert calls == [1]
        assert build() is build() and calls == [1]
    finally:
        pattern_start._BUILDS.remove(build)
