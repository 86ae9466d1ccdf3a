"""How event text reads in a report: one short line (``short_label``), and an operator's edit put
in words (``edit_label``: the rules it teaches, else the words it changed). Labels come from
events: untrusted text, escaped or printed literally by whoever shows them.
"""

from __future__ import annotations

import difflib

from digest.fingerprint import edit_rules, mask_ids

#: characters of a label kept (labels come from event text)
LABEL_MAX = 120

#: how an edit rule (``digest.fingerprint.edit_rules``) reads in a report
_RULE_WORDS = {
    "rejected": "rejects the draft",
    "shorter": "shortens the reply",
    "longer": "lengthens the reply",
    "shorter-apology": "shortens the apology",
}
_VERBS = {"removed": "removes", "added": "adds"}
_THING = {
    "promise": "a promise",
    "greeting": "a greeting",
    "sign-off": "a sign-off",
    "apology": "an apology",
    "exclamation": "exclamation marks",
    "emoji": "emoji",
    "name": "the customer's name",
    "shorthand": "chat shorthand",
}


def short_label(text: str) -> str:
    """One line of at most LABEL_MAX characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= LABEL_MAX else line[: LABEL_MAX - 1] + "…"


def edit_label(original: str, final: str | None) -> str:
    """What an operator's edit does, in words: its rules (``removes a promise, shortens the
    reply``), or the words it changed (ids masked)."""
    rules = edit_rules(original, final)
    if rules:
        words = []
        for rule in rules:
            verb, _, thing = rule.partition("-")
            if rule in _RULE_WORDS:
                words.append(_RULE_WORDS[rule])
            elif verb == "greeting":  # another greeting: greeting-dear
                words.append(f"greets with “{thing.replace('-', ' ').capitalize()}”")
            else:
                words.append(f"{_VERBS.get(verb, verb)} {_THING.get(thing, thing)}")
        return short_label(", ".join(words))
    drafted, sent = original.split(), (final or "").split()
    removed: list[str] = []
    added: list[str] = []
    matcher = difflib.SequenceMatcher(a=drafted, b=sent, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op in ("replace", "delete"):
            removed.extend(drafted[i1:i2])
        if op in ("replace", "insert"):
            added.extend(sent[j1:j2])
    old, new = mask_ids(" ".join(removed)), mask_ids(" ".join(added))
    if old and new:
        return short_label(f"rewrites “{old}” as “{new}”")
    return short_label(
        f"removes “{old}”" if old else f"adds “{new}”" if new else "rewrites the reply"
    )
