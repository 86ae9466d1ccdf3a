"""Sibling tools: the actions of one resource (``crm_create_contact``, ``crm_update_contact``,
``contacts.patch``), which often fail with one error ("Property 'x' does not exist", "A
records take an IPv4 address"). One error of two siblings is one lesson about the resource
(DESIGN §8a): its second occurrence is support for the first, not a lesson of its own.

A failure's key hashes its tool and its error's template together (``digest.fingerprint``),
so nothing can read "the same template on another tool" from two keys. A failure knows its
tool and template, though: the keys the same template would have on the tool's siblings (its
name with its action swapped for another) are computed here, and a lesson holding one of
them is the same error of a sibling. Nothing is guessed from words: the two templates are
equal, and the two names differ only in the action.
"""

from __future__ import annotations

import re
from functools import lru_cache

from digest.fingerprint import template_key, tool_subject

#: the actions a tool's name may differ by from its siblings' on one resource
ACTIONS = frozenset(
    """add cancel create delete edit fetch find get insert list modify patch post put query
    read remove replace save search set update upsert write""".split()  # noqa: SIM905
)
#: a name's words and what joins them ("crm_create_contact", "contacts.patch")
_JOINS = re.compile(r"([^a-z0-9]+)")
#: a word whose action is run into the resource ("createcontact": camelCase, lower-cased)
_RUN_IN = 3


def sibling_names(tool: str) -> tuple[str, ...]:
    """The names of ``tool``'s siblings: its name (as its keys hold it) with one action word
    swapped for another, or an action run into a word ("createcontact", "contactcreate")."""
    return _sibling_names(tool_subject(tool))


@lru_cache(maxsize=256)
def _sibling_names(name: str) -> tuple[str, ...]:
    parts = _JOINS.split(name)  # words at even places, what joins them at odd ones
    found: dict[str, None] = {}
    for at in range(0, len(parts), 2):
        word = parts[at]
        for swapped in _swapped(word):
            found["".join([*parts[:at], swapped, *parts[at + 1 :]])] = None
    found.pop(name, None)
    return tuple(found)


def _swapped(word: str) -> list[str]:
    """``word`` with its action swapped for each other action: the whole word, or an action
    it begins or ends with past at least ``_RUN_IN`` other letters."""
    if word in ACTIONS:
        return [other for other in sorted(ACTIONS) if other != word]
    out: list[str] = []
    for action in ACTIONS:
        rest = len(word) - len(action)
        if rest < _RUN_IN:
            continue
        if word.startswith(action):
            out.extend(other + word[len(action) :] for other in sorted(ACTIONS - {action}))
        if word.endswith(action):
            out.extend(word[:rest] + other for other in sorted(ACTIONS - {action}))
    return out


def sibling_keys(tool: str | None, template: str) -> tuple[str, ...]:
    """The keys an error of ``template`` would have on ``tool``'s siblings (none for a run's
    own error, which has no tool)."""
    if not tool:
        return ()
    return tuple(template_key(sibling, template) for sibling in sibling_names(tool))
