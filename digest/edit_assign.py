"""Which rule of an edit each of its lessons is about (``digest.edits.taught`` finds the rules):
a model writes an edit's lessons in its own words and order, and each must take the key of
the rule it states (``digest.fingerprint.assigned_edit_rules``). Read in what a lesson names
(a family, a shape rule, the thing a shape is about) and the words it uses, never in what it
quotes of the draft.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from digest.edits import EditRule, tone_side
from digest.reply_text import TOKEN, substantive

#: the words a lesson about each family uses (a model words lessons its own way)
_FAMILY_WORDS = {
    "promise": frozenset(
        """promise promises promised promising overpromise guarantee guarantees guaranteed
        commit commitment commitments confirm confirmed unconfirmed""".split()  # noqa: SIM905
    ),
    "tone": frozenset(
        """tone greeting greetings greet sign-off signoff sign-offs regards exclamation
        exclamations emoji emojis emoticons apology apologies apologise apologize sorry short
        shorter brief concise long longer length warm warmer calm formal casual friendly
        enthusiastic punctuation""".split()  # noqa: SIM905
    ),
    "rejected": frozenset("reject rejected rejects rejection".split()),  # noqa: SIM905
    "content": frozenset("content fact facts policy".split()),  # noqa: SIM905
}


def _tokens(text: str) -> set[str]:
    found = set(TOKEN.findall(text.casefold()))
    return found | {part for token in found for part in token.split("-") if part}


#: the fewest words in a row a lesson takes from the draft for them to be a quote of it
_QUOTED_RUN = 4


def _unquoted(text: str, draft: str) -> str:
    """``text`` without what it quotes of the draft (``_QUOTED_RUN`` words or more in a row,
    "Drafting a reply like: Hey hun!! Great news, 14 September is totally free…"): every
    rule's lesson may quote the reply it corrects, so a quote tells no rule from another."""
    import difflib

    words, drafted = text.split(), [w.casefold() for w in draft.split()]
    if not drafted or len(words) < _QUOTED_RUN:
        return text
    matcher = difflib.SequenceMatcher(a=[w.casefold() for w in words], b=drafted, autojunk=False)
    quoted = {
        i
        for block in matcher.get_matching_blocks()
        if block.size >= _QUOTED_RUN
        for i in range(block.a, block.a + block.size)
    }
    return " ".join(w for i, w in enumerate(words) if i not in quoted)


def assign(texts: Sequence[str], rules: Sequence[EditRule], draft: str = "") -> list[int]:
    """Which rule each lesson of an edit is about (an index into ``rules``): the one it names
    (a tag such as ``tone`` or ``removed-promise``), else the one whose words it uses most
    (for content, the words the operator wrote; not those of ``draft`` it quotes), else the
    content rule, else the first."""
    if len(rules) <= 1:
        return [0] * len(texts)
    fallback = next((i for i, r in enumerate(rules) if r.family == "content"), 0)
    table = [[_fit(_tokens(_unquoted(text, draft)), rule) for rule in rules] for text in texts]
    chosen = [row.index(max(row)) if max(row) else fallback for row in table]
    if len(set(chosen)) == len(chosen) or len(texts) > len(rules):
        return chosen
    # no more lessons than rules, two of them on one rule: each rule taken once, the way that
    # fits best in all (a model's tone lesson that quotes the draft shares the content's
    # words too: the content rule is the other lesson's, which has no other rule to take)
    if math.perm(len(rules), len(texts)) <= _WAYS_MAX:
        ways = itertools.permutations(range(len(rules)), len(texts))
        best = max(ways, key=lambda way: sum(table[t][r] for t, r in enumerate(way)))
        return [r if table[t][r] else chosen[t] for t, r in enumerate(best)]
    taken: dict[int, int] = {}  # too many ways to weigh each: best fits first
    for fit, t, r in sorted(
        ((fit, t, r) for t, row in enumerate(table) for r, fit in enumerate(row)),
        key=lambda found: (-found[0], found[1], found[2]),
    ):
        if fit and t not in taken and r not in taken.values():
            taken[t] = r
    return [taken.get(t, chosen[t]) for t in range(len(texts))]


#: the most ways of giving an edit's lessons its rules that ``assign`` weighs one by one
_WAYS_MAX = 720


def _fit(tokens: set[str], rule: EditRule) -> int:
    """How well a lesson's words fit an edit rule: naming it (its family or a shape name, as
    a tag does) outweighs any words; then the words its family's lessons use, and for content
    the words the operator changed (those the draft and the final both say are the reply's
    context, which a lesson on any of the edit's rules may quote)."""
    words = _FAMILY_WORDS[rule.family]
    if rule.family == "content":
        said, unsaid = _tokens(rule.said), _tokens(rule.unsaid)
        words = words | {t for t in said ^ unsaid if substantive(t) and len(t) > 2}
    named = (
        rule.family in tokens
        or any(name in tokens for name in rule.names)
        or any(_speaks_of(tone_side(name)[0], tokens) for name in rule.names)
    )
    return 10 * int(named) + len(tokens & words)


#: the letters a shape's thing ("apology", "exclamation", "emoji") is read by in a lesson's
#: words ("apologies", "apologise"): its first ones, as its forms share them
_THING_STEM = 5


def _speaks_of(thing: str, tokens: set[str]) -> bool:
    """Does a lesson speak of the thing a shape rule is about ("no effusive apologies" of
    ``removed-apology``, "no exclamation marks" of ``removed-exclamation``)? Then it names the
    rule as its tag would."""
    if len(thing) < _THING_STEM:
        return thing in tokens
    return any(token.startswith(thing[:_THING_STEM]) for token in tokens)
