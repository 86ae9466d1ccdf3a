"""What an operator's edit teaches (DESIGN §8a): the rules its diff shows, each one lesson.

An edit can fix the tone and the content of a reply at once ("Hi!!! We will refund you
tomorrow for sure!!! 😀" → "Hello. Refunds take five business days to reach your account.").
Each rule is stated apart, in this order (the most telling first; the reflect contract allows
three lessons per event: content takes what its promise and tone rules leave):

- ``content``: what the final reply says that the draft did not (the final's sentences that
  carry the words the operator added, ids masked), one rule per sentence that states
  something new (``content_statements``), or, when the edit adds nothing and no
  promise explains it, what the operator left out that states something (an apology or a
  courtesy taken out with the tone is the tone's). Its identity is that content: two different
  content rules never share a key, the same content with other ids does. What only serves
  another rule is not content: an apology, a greeting, a sign-off, or a hedge written where a
  promise was ("as soon as the engineer has checked it": the promise rule's example);
- ``promise``: a promise (a date, a guarantee, a refund nobody confirmed) removed or added (a
  term inside new content, "free within 90 days", is that content);
- ``tone``: the reply's tone and shape together (a greeting dropped, added or another one
  written, a sign-off, an apology dropped, added or cut down, exclamation marks, emoji,
  shorter or longer when no content explains it): one lesson whose identity is that set of
  rules, so edits that share a diff shape share their tone rule and nothing else;
- ``rejected``: a draft rejected outright, alone, identified by the draft's content.

Pure functions on text; a reply's words without its tone are read in ``digest.reply_text`` (its
promises, hedges and forms of address in ``digest.reply_words``), what
it says, tone aside, in ``digest.edit_content``.
``digest.fingerprint`` keys each rule (``kind:subject-digest`` with
the family as subject), the offline judge words each rule's lesson, and ``assign`` tells which
rule a model's lesson speaks of.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from digest.bounded import memo
from digest.edit_content import (
    content_change,
    content_statements,
    dropped_claims,
    left_out,
    says_more,
    takes_out,
)
from digest.reply_text import (
    APOLOGY,
    EMOJI,
    GREETING,
    SENTENCE_END,
    SHORTHAND,
    SHORTHAND_WORDS,
    SIGN_OFF,
    TITLED_NAME,
    claims,
    content_template,
    plain,
    sentences,
)
from digest.reply_words import ADDRESS, HEDGE, NUMBER_WORD, PROMISE

#: an apology of at least this many words, cut to half or less, is a rule of its own
APOLOGY_LONG = 8

#: the families of rules, in the order an edit's lessons are written
FAMILIES = ("content", "promise", "tone", "rejected")


def _address(original: str, final: str) -> list[str]:
    """``formal-address`` when the draft says the familiar "you" of a language and the final
    only its polite one ("kannst du" → "können Sie", "ta carte" → "votre carte"),
    ``informal-address`` the other way; else nothing."""
    for informal, formal in ADDRESS:
        was, now = bool(informal.search(original)), bool(informal.search(final))
        polite, polite_now = bool(formal.search(original)), bool(formal.search(final))
        if was and not now and polite_now:
            return ["formal-address"]
        if polite and not polite_now and now and not was:
            return ["informal-address"]
    return []


def _flag(name: str, before: bool, after: bool) -> list[str]:
    if before and not after:
        return [f"removed-{name}"]
    if after and not before:
        return [f"added-{name}"]
    return []


def _greeting(text: str) -> str:
    found = GREETING.search(text)
    return " ".join(found.group(1).casefold().split()) if found else ""


def _apology_words(text: str) -> int:
    """How many words the reply's apologising sentences take."""
    return sum(len(s.split()) for s in SENTENCE_END.split(text) if APOLOGY.search(s))


def edit_rules(original: str, final: str | None) -> tuple[str, ...]:
    """The shape rules an operator's edit shows, as names: ``rejected``, ``removed-promise``,
    ``added-greeting``, ``greeting-dear`` (another greeting), ``formal-address`` ("du" →
    "Sie"), ``added-name`` (the customer greeted by title and name), ``removed-shorthand``
    ("pls", "ur", "ty" spelled out), ``shorter-apology`` (a long apology cut down),
    ``shorter``, … (empty when the diff shows none of them). The content of the edit is not
    among them: ``taught`` adds it."""
    if final is None:
        return ("rejected",)
    rules: list[str] = []
    # a promise the draft made that the final does not make is removed, whatever else the final
    # commits to ("guaranteed by tomorrow" → "left our warehouse today")
    promised, promises = _promises(original), _promises(final)
    if promised - promises:
        rules.append("removed-promise")
    elif promises - promised:
        rules.append("added-promise")
    greeted, greets = _greeting(original), _greeting(final)
    rules += _flag("greeting", bool(greeted), bool(greets))
    if greeted and greets and greeted != greets:
        rules.append("greeting-" + greets.replace(" ", "-"))
    rules += _address(plain(original), plain(final))
    # the customer greeted by title and name ("Bonjour," → "Bonjour Madame Lefèvre,")
    rules += _flag("name", bool(TITLED_NAME.search(original)), bool(TITLED_NAME.search(final)))
    if len(set(SHORTHAND.findall(original.casefold()))) >= SHORTHAND_WORDS and not (
        SHORTHAND.search(final)
    ):
        rules.append("removed-shorthand")  # "pls clear ur cache, ty" spelled out
    rules += _flag("sign-off", bool(SIGN_OFF.search(original)), bool(SIGN_OFF.search(final)))
    rules += _flag("apology", bool(APOLOGY.search(original)), bool(APOLOGY.search(final)))
    sorry, sorry_now = _apology_words(original), _apology_words(final)
    if sorry_now and sorry >= APOLOGY_LONG and sorry_now <= sorry / 2:
        rules.append("shorter-apology")
    rules += _flag("exclamation", "!" in original, "!" in final)
    rules += _flag("emoji", bool(EMOJI.search(original)), bool(EMOJI.search(final)))
    a, b = len(original.split()), len(final.split())
    if a and b <= 0.6 * a:
        rules.append("shorter")
    elif b and a <= 0.6 * b:
        rules.append("longer")
    return tuple(rules)


#: the lessons one event may teach (the reflect contract's ``MAX_LESSONS``)
RULES_PER_EDIT = 3


def _promises(text: str) -> set[str]:
    """The promises a reply makes, as its words (``PROMISE``: "guaranteed", "by friday")."""
    return {
        " ".join(found.group(0).casefold().split())
        for s in sentences(plain(text))
        if claims(s)
        for found in PROMISE.finditer(s)
    }


def _promising(text: str) -> str:
    """The sentences of a reply that make a promise (``PROMISE``)."""
    # courtesy ("thanks for reaching out today") promises nothing
    return " ".join(s for s in sentences(plain(text)) if PROMISE.search(s) and claims(s))


def _hedges(said: str) -> bool:
    """Does what the final says only hedge (no date, no number: "as soon as the engineer has
    checked it")? Said in place of a promise, it is how the promise rule is kept, not a fact."""
    return all(HEDGE.search(s) and not NUMBER_WORD.search(s) for s in sentences(said))


# --- the rules ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class EditRule:
    """One rule an edit teaches: its family, its names (``removed-promise``; the tone rules
    together; ``said`` or ``left-out`` for content; ``rejected``), and for content the words
    the final says (``said``) and the draft's words it replaces or the operator left out
    (``unsaid``), as written."""

    family: str
    names: tuple[str, ...]
    said: str = ""
    unsaid: str = ""

    @property
    def material(self) -> tuple[str, ...]:
        """What the rule's identity is made of: its names, and for content what it says."""
        if self.family == "content":
            return (*self.names, content_template(self.said or self.unsaid))
        if self.family == "rejected":
            return (*self.names, content_template(self.unsaid))
        return self.names


#: edits whose rules a process remembers, and their bytes (``digest.bounded``): an event's
#: signature, its judge and the assignment of its lessons each read them, and a repeated edit
#: is the same two texts. Keyed by a digest of the two (about 1.1 KB an entry, its rules): the
#: throughput stream's (issue 27) hits are the same with 0.25 MiB as with 4 MiB
TAUGHT_KEPT, TAUGHT_BYTES = 1024, 2**20


def taught(original: str, final: str | None) -> list[EditRule]:
    """The rules an edit teaches, content first, then a promise, then the tone; a rejected
    draft teaches one. Never empty: an edit that shows no rule teaches its rewording."""
    return list(_taught(original, final))


@memo(TAUGHT_KEPT, TAUGHT_BYTES, digest_keys=True)
def _taught(original: str, final: str | None) -> tuple[EditRule, ...]:
    if final is None:
        return (EditRule("rejected", ("rejected",), unsaid=original),)
    shape = edit_rules(original, final)
    promise = tuple(n for n in shape if n.endswith("-promise"))
    tone = tuple(n for n in shape if n not in promise)
    said, unsaid = content_change(original, final)
    if set(tone) - {"shorter", "longer"} and said and not says_more(original, said):
        # the draft said in the tone the operator asks for ("ur order's shipped lol" → "Your
        # order has shipped."): the tone's rule, no content of its own
        said = ""
    promised = _promising(final)
    if promise == ("added-promise",) and said and promised and promised in said:
        promise = ()  # a date or a term inside new content is that content, not a promise
    if said:
        tone = tuple(n for n in tone if n != "longer")  # the content made it longer
    if promise == ("removed-promise",) and "shorter" in tone:
        # the promise taken out made it shorter: without it, is the draft still long?
        kept = len(original.split()) - len(_promising(original).split())
        if len(final.split()) > 0.6 * kept:
            tone = tuple(n for n in tone if n != "shorter")
    # what the operator says in a removed promise's place, where it only hedges ("A
    # technician will look at it as soon as a slot opens."): the promise rule's, no content
    # (the rest of what the final says, "The repair costs $140.", still is)
    hedged = (
        " ".join(s for s in sentences(said) if _hedges(s))
        if promise == ("removed-promise",) and said
        else ""
    )
    hedge = bool(hedged) and _hedges(said)
    rules: list[EditRule] = []
    if said and not hedge:
        # each statement the operator added is a rule of its own, as many as the event's
        # lessons allow beside its promise and tone rules (the rest go with the last one)
        room = max(1, RULES_PER_EDIT - bool(promise) - bool(tone))
        # a claim the draft made that nothing added stands in for is a rule of its own (what
        # not to say), when there is room beside the content; a promise is the promise's rule
        dropped = dropped_claims(original, final, PROMISE if promise else None)
        if dropped and room > 1:
            room -= 1
            unsaid = " ".join(
                s
                for s in sentences(unsaid)
                if not any(d.rstrip(".").casefold() in s.casefold() for d in dropped)
            )
        else:
            dropped = []
        statements = [s for s in content_statements(original, final) if not (hedged and _hedges(s))]
        if len(statements) > room:
            statements = [*statements[: room - 1], " ".join(statements[room - 1 :])]
        rules += [EditRule("content", ("said",), said=s, unsaid=unsaid) for s in statements]
        if dropped:
            rules.append(EditRule("content", ("left-out",), unsaid=" … ".join(dropped)))
    elif unsaid and not promise and set(tone) <= {"shorter"}:
        # nothing added, and no promise or tone rule explains what was removed: what the
        # operator took out is the rule ("shorter" says only that it was long, and the rule
        # says why: like "longer" beside new content, it is no tone rule of its own)
        gone = left_out(original, final)
        if gone:
            rules.append(EditRule("content", ("left-out",), unsaid=gone))
            tone = tuple(n for n in tone if n != "shorter")  # what was left out made it shorter
    elif unsaid and not promise and claims(unsaid):
        # the tone changed too, and a sentence that states something went with it ("Shipping
        # is free to every country."): the tone does not explain a claim taken out
        # the claims of each phrase, without the exclamation beside them ("Amazing!!! Plus
        # every order gets free installation!!!": the tone's rule took "Amazing" out)
        gone = " … ".join(
            c
            for p in left_out(original, final).split(" … ")
            if (c := claims(p)) and takes_out(c, final)
        )
        if gone:
            rules.append(EditRule("content", ("left-out",), unsaid=gone))
            tone = tuple(n for n in tone if n != "shorter")
    if promise:
        # a removed promise may come with what the operator says in its place (a hedge)
        removed = promise[0].startswith("removed")
        rules.append(
            EditRule("promise", promise, said=hedged if removed else promised,
                     unsaid=_promising(original) if removed else "")
        )  # fmt: skip
    if tone:
        rules.append(EditRule("tone", tone))
    if not rules:
        rules.append(EditRule("content", ("reworded",), said=plain(final) or final))
    return tuple(rules)


#: the shape rules that only say a reply got shorter or longer: no tone on their own
_LENGTH = frozenset({"shorter", "longer"})
#: the tags a tone lesson carries beside its shape rules' names
_TONE_FRAME = frozenset({"operator-edit", "tone"})


def tone_side(name: str) -> tuple[str, str]:
    """What a tone rule is about and which way: ``removed-emoji`` → (emoji, removed),
    ``greeting-dear`` → (greeting, dear), ``shorter-apology`` → (apology, shorter)."""
    if name.startswith("greeting-"):
        return "greeting", name.removeprefix("greeting-")
    way, _, thing = name.partition("-")
    return (thing, way) if thing else (name, name)


def same_tone(a_tags: Sequence[str], b_tags: Sequence[str]) -> bool:
    """Are two tone lessons (their tags: the shape rules' names) one tone rule of the
    operator's? They share a shape rule beside length ("no exclamation marks" in both) and
    none of them goes the other way ("removed-emoji" and "added-emoji", two greetings put in
    place of the draft's; a greeting added where there was none is any of them):
    the tone rules of several edits are one lesson, grown by each (DESIGN §8a)."""
    mine = {str(t) for t in a_tags} - _TONE_FRAME
    theirs = {str(t) for t in b_tags} - _TONE_FRAME
    if not (mine & theirs) - _LENGTH:
        return False
    ways: dict[str, set[str]] = {}
    for name in (mine | theirs) - _LENGTH:
        thing, way = tone_side(name)
        ways.setdefault(thing, set()).add(way)
    # an apology cut short is an apology kept: it does not contradict one added; a greeting
    # added where there was none is any greeting ("Beste Sanne" beside "Dzień dobry Panie …")
    return all(len(w - {"shorter", "added"}) <= 1 for w in ways.values())


def tone_added(new_tags: Sequence[str], old_tags: Sequence[str]) -> tuple[str, ...]:
    """The shape rules a tone lesson (``new_tags``) asks for that another (``old_tags``) does
    not, length aside (a reply made shorter or longer says nothing of tone on its own); a
    greeting beside a greeting added where there was none asks for no other one ("Dzień dobry
    Panie …" after "Beste Sanne": the greeting in the reply's language)."""
    old = {str(t) for t in old_tags}
    greets = {tone_side(t)[1] for t in old if tone_side(t)[0] == "greeting"}
    return tuple(
        str(t)
        for t in new_tags
        if str(t) not in old | _TONE_FRAME
        and str(t) not in _LENGTH
        and not (
            tone_side(str(t))[0] == "greeting"
            and greets
            and "added" in greets | {tone_side(str(t))[1]}
        )
    )
