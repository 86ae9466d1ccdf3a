"""Large alternations searched faster, with the same answers (issue 27: the worker's CPU per
event).

Python's ``re`` tries every alternative of a pattern at every position of the text, and with
``re.IGNORECASE`` it has no quick test of the first character (it has one for case-sensitive
literals only). The phrase lists this package searches (reversal markers, error families,
the screen's whole-view checks: up to hundreds of alternatives, in many languages) then cost
a millisecond or more for a 100-character text.

- ``with_start_check`` puts a lookahead before the pattern, ``(?=[…])``, naming every
  character a match can begin with, read from the parsed pattern: where no alternative can
  begin, one set test fails instead of every alternative. The lookahead consumes nothing and
  every match starts with one of those characters, read with the same flags, so the matches
  (where, how long, which groups) are exactly the pattern's own. Only for a pattern read with
  ``re.IGNORECASE`` (without it ``re`` skips to a possible first character itself), and not
  when the start cannot be read (an alternative that may start with any character, ``\\S``, a
  flag changed inside, a pattern that may match the empty string).
- ``for_existence`` is for a search that only asks whether a text matches: the alternatives
  gathered by the characters they start with (a trie: ``n(?:o longer|icht mehr)|…``), so one
  test of a letter stands for every alternative starting with it. It matches somewhere exactly
  when the pattern does, but not always the same alternative or span.

The modules build theirs on first use (``built_once``); a worker builds them all before its
pool forks (``build_all``, ``worker.memory.warm_up_shared``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any, TypeVar

T = TypeVar("T")

#: a range of more characters than this in a leading set is read as "any character": the
#: check would test for little
_WIDEST_RANGE = 512


def with_start_check(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` behind a lookahead for the characters its matches can start with (see the
    module's docstring); ``pattern`` itself when they cannot be told."""
    if not isinstance(pattern.pattern, str) or not pattern.flags & re.IGNORECASE:
        return pattern  # without it, re tests the first character itself when it can
    chars = start_chars(pattern)
    if chars is None:
        return pattern
    charset = "".join(re.escape(c) for c in sorted(chars))
    return re.compile(f"(?=[{charset}])(?:{pattern.pattern})", pattern.flags)


def start_chars(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """The characters a match of ``pattern`` can begin with (as written: the pattern's flags
    say how they match), or None when that cannot be read or a match may be empty."""
    chars, may_be_empty = _starts(sre_parse.parse(pattern.pattern, pattern.flags))
    if chars is None or may_be_empty:
        return None
    return frozenset(chars)


def _starts(items: Any) -> tuple[set[str] | None, bool]:
    """(the characters a match of the parsed sequence ``items`` can begin with, or None for
    any; whether it may match the empty string)."""
    chars: set[str] = set()
    for op, av in items:
        if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
            continue  # consumes nothing: what follows gives the first character
        if op is sre.LITERAL:
            chars.add(chr(av))
            return chars, False
        if op is sre.IN:
            for item_op, item in av:
                if item_op is sre.LITERAL:
                    chars.add(chr(item))
                elif item_op is sre.RANGE and item[1] - item[0] < _WIDEST_RANGE:
                    chars.update(map(chr, range(item[0], item[1] + 1)))
                else:  # a negated set, a category (\w, \S), a wide range
                    return None, False
            return chars, False
        if op is sre.BRANCH:
            found, may_be_empty = _alternatives(av[1])
        elif op is sre.SUBPATTERN:
            _group, add_flags, del_flags, inner = av
            if add_flags or del_flags:
                return None, False
            found, may_be_empty = _starts(inner)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            least, _most, inner = av
            found, may_be_empty = _starts(inner)
            may_be_empty = may_be_empty or least == 0
        else:  # any character, a back-reference, an atomic group, a conditional …
            return None, False
        if found is None:
            return None, False
        chars |= found
        if not may_be_empty:
            return chars, False
    return chars, True


def _alternatives(branches: Any) -> tuple[set[str] | None, bool]:
    chars: set[str] = set()
    may_be_empty = False
    for branch in branches:
        found, empty = _starts(branch)
        if found is None:
            return None, False
        chars |= found
        may_be_empty = may_be_empty or empty
    return chars, may_be_empty


def for_existence(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """A pattern that matches somewhere in a text exactly when ``pattern`` does, for a search
    that only asks whether (``bool(found)``), never where or what: its alternatives (those of
    groups that are a whole alternative, flattened) gathered by the letter they start with,
    ``n(?:o longer|icht mehr)|…``, so that at a position one test of a letter stands for every
    alternative starting with it; behind ``with_start_check``. The matches themselves may
    differ (another alternative may match first at a position), and groups are numbered
    otherwise. ``pattern`` itself when its text cannot be regrouped safely (verbose, inline
    flags, back-references) or holds one alternative."""
    source = pattern.pattern
    if not isinstance(source, str) or pattern.flags & re.VERBOSE:
        return pattern
    if re.search(r"\(\?[aiLmsux-]|\(\?P[=<]|\\[1-9]", source):
        return pattern
    alternatives = _flattened(source)
    if len(alternatives) < 2:
        return pattern  # nothing to gather
    if not any(_head(alternative) for alternative in alternatives):
        return with_start_check(pattern)
    # no start check on top: it would save a sixth of the search and triple the compiling
    return re.compile(_grouped(alternatives), pattern.flags)


def built_once(build: Callable[[], T]) -> Callable[[], T]:
    """``build`` run on its first call only (compiling regrouped patterns costs tenths of a
    second: not on import), and run by ``build_all``."""
    once = lru_cache(maxsize=1)(build)
    _BUILDS.append(once)
    return once


_BUILDS: list[Callable[[], object]] = []


def build_all() -> None:
    """Run every ``built_once`` of the modules imported: a worker's main process does, before
    its pool forks, so that its children share the patterns instead of each compiling them."""
    for build in _BUILDS:
        build()


#: a group that starts an alternative is spread over it (``(?:has|have) no`` → ``has no|have
#: no``) when it holds at most this many alternatives
_SPREAD = 32


def _head(alternative: str) -> bool:
    """Does ``alternative`` start with a letter, digit or space that no quantifier follows?"""
    head = alternative[:1]
    return (head.isalnum() or head == " ") and alternative[1:2] not in ("?", "*", "+", "{")


def _grouped(alternatives: list[str]) -> str:
    """``alternatives`` as one alternation whose members starting with one character share
    it, ``n(?:o longer|icht mehr)``, recursively (a trie of their heads)."""
    heads: dict[str, list[str]] = {}
    others: list[str] = []
    for alternative in alternatives:
        if _head(alternative):
            heads.setdefault(alternative[0], []).append(alternative[1:])
        else:
            others.append(alternative)
    grouped = []
    for head, rests in heads.items():
        if len(rests) > 1:
            grouped.append(f"{head}(?:{_grouped(rests)})")
        elif _plain_tail(rests[0]):
            grouped.append(head + rests[0])
        else:
            grouped.append(f"{head}(?:{rests[0]})")
    return "|".join(grouped + others)


def _plain_tail(rest: str) -> bool:
    """Can ``rest`` follow a character as it is (it holds no alternation of its own)?"""
    return len(_top_alternatives(rest)) == 1


def _flattened(source: str) -> list[str]:
    """The alternatives of ``source``, those of a group that makes a whole alternative
    (``(?:a|b)``) taken for its own."""
    found: list[str] = []
    for alternative in _top_alternatives(source):
        inner = _whole_group(alternative)
        if inner is not None:
            found.extend(_flattened(inner))
            continue
        spread = _spread(alternative)
        found.extend(_flattened("|".join(spread)) if spread is not None else [alternative])
    return found


def _spread(alternative: str) -> list[str] | None:
    """``(?:a|b)rest`` as ``arest`` and ``brest`` (the group's alternatives flattened), when
    the alternative starts with a group that no quantifier follows and has at most
    ``_SPREAD`` alternatives; else None."""
    if not alternative.startswith("(?:"):
        return None
    end = _group_end(alternative)
    if end is None or alternative[end + 1 : end + 2] in ("?", "*", "+", "{"):
        return None
    inner = _flattened(alternative[3:end])
    if len(inner) > _SPREAD:
        return None
    rest = alternative[end + 1 :]
    return [part + rest for part in inner]


def _structure(source: str) -> Iterator[tuple[int, str, int]]:
    """(where, which, the group depth after it) for each ``(``, ``)`` and ``|`` of
    ``source`` that is syntax: not escaped, not inside a set (a ``]`` right after ``[`` or
    ``[^`` is a member, not the set's end)."""
    depth, i, in_set = 0, 0, False
    while i < len(source):
        c = source[i]
        if c == "\\":
            i += 2
            continue
        if in_set:
            in_set = c != "]"
        elif c == "[":
            in_set = True
            if source[i + 1 : i + 2] == "^":
                i += 1
            if source[i + 1 : i + 2] == "]":
                i += 1
        elif c in "()|":
            depth += {"(": 1, ")": -1, "|": 0}[c]
            yield i, c, depth
        i += 1


def _top_alternatives(source: str) -> list[str]:
    """``source`` cut at each ``|`` outside a group and a set."""
    cuts = [i for i, c, depth in _structure(source) if c == "|" and depth == 0]
    return [source[a + 1 : b] for a, b in itertools.pairwise([-1, *cuts, len(source)])]


def _whole_group(alternative: str) -> str | None:
    """What ``(?:…)`` holds when the alternative is that group and nothing else."""
    if not alternative.startswith("(?:"):
        return None
    end = _group_end(alternative)
    return alternative[3:-1] if end == len(alternative) - 1 else None


def _group_end(text: str) -> int | None:
    """Where the group opening ``text`` closes."""
    return next((i for i, c, depth in _structure(text) if c == ")" and depth == 0), None)
