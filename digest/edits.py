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

Pure functions on text. ``digest.fingerprint`` keys each rule (``kind:subject-digest`` with
the family as subject), the offline judge words each rule's lesson, and ``assign`` tells which
rule a model's lesson speaks of.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

#: an apology of at least this many words, cut to half or less, is a rule of its own
APOLOGY_LONG = 8

#: the families of rules, in the order an edit's lessons are written
FAMILIES = ("content", "promise", "tone", "rejected")

_PROMISE = re.compile(
    r"\b(guarantee[ds]?|promise[ds]?|definitely|certainly|for sure|100 ?%|will (?:arrive|be "
    r"(?:delivered|there|shipped|refunded))|by (?:tomorrow|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|next week|end of day)|within \d+ (?:hours?|days?)|today"
    # an offer the reply commits the business to: "we'll give you a free courtesy car"
    r"|(?:give|send|offer|lend) you (?:a |an |our )?(?:free|complimentary)|complimentary)\b",
    re.I,
)
#: greetings in the languages the product screens (a closed class of words)
_GREETINGS = (
    r"hi|hello|hey|dear|good (?:morning|afternoon|evening)|greetings|guten (?:tag|morgen|abend)"
    r"|hallo|liebe[rs]?|sehr geehrte[rs]?|bonjour|bonsoir|salut|cher|chère|hola|buenos días"
    r"|buenas tardes|estimad[oa]|olá|bom dia|boa tarde|prezad[oa]|buongiorno|buonasera|ciao"
    r"|gentile|beste|geachte|goedemorgen|goedemiddag|hej|hejsan|dzień dobry|szanown[aye]|merhaba"
)
_GREETING = re.compile(rf"^\W*({_GREETINGS})\b", re.I)
#: a sign-off ends the reply, maybe with a name after it ("Kind regards, the Lumen team")
#: sign-offs in the languages the product screens (a closed class of phrases)
_SIGN_OFFS = (
    r"kind regards|best regards|best wishes|regards|cheers|sincerely|thanks again"
    r"|have a (?:great|nice) day|mit freundlichen grüßen|freundliche grüße|viele grüße"
    r"|beste grüße|liebe grüße|bien cordialement|cordialement|salutations|atentamente"
    r"|un saludo|saludos|atenciosamente|cumprimentos|cordiali saluti|distinti saluti"
    r"|met vriendelijke groet(?:en)?|vriendelijke groet(?:en)?|med vänliga hälsningar"
    r"|vänliga hälsningar|pozdrawiam|z poważaniem|saygılarımla"
)
#: the name after a sign-off may stand on the next line ("Kind regards,\nthe Lumen team")
_SIGN_OFF = re.compile(rf"\b({_SIGN_OFFS})\b[^.!?]{{0,40}}[.!?]*\s*$", re.I)
_APOLOGY = re.compile(r"\b(sorry|apologi[sz]e|apologies|regret)\b", re.I)
_EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf\ufe0f]")


def _flag(name: str, before: bool, after: bool) -> list[str]:
    if before and not after:
        return [f"removed-{name}"]
    if after and not before:
        return [f"added-{name}"]
    return []


def _greeting(text: str) -> str:
    found = _GREETING.search(text)
    return " ".join(found.group(1).casefold().split()) if found else ""


def _apology_words(text: str) -> int:
    """How many words the reply's apologising sentences take."""
    return sum(len(s.split()) for s in _SENTENCE_END.split(text) if _APOLOGY.search(s))


def edit_rules(original: str, final: str | None) -> tuple[str, ...]:
    """The shape rules an operator's edit shows, as names: ``rejected``, ``removed-promise``,
    ``added-greeting``, ``greeting-dear`` (another greeting), ``shorter-apology`` (a long
    apology cut down), ``shorter``, … (empty when the diff shows none of them). The content of
    the edit is not among them: ``taught`` adds it."""
    if final is None:
        return ("rejected",)
    rules: list[str] = []
    rules += _flag("promise", bool(_promising(original)), bool(_promising(final)))
    greeted, greets = _greeting(original), _greeting(final)
    rules += _flag("greeting", bool(greeted), bool(greets))
    if greeted and greets and greeted != greets:
        rules.append("greeting-" + greets.replace(" ", "-"))
    rules += _flag("sign-off", bool(_SIGN_OFF.search(original)), bool(_SIGN_OFF.search(final)))
    rules += _flag("apology", bool(_APOLOGY.search(original)), bool(_APOLOGY.search(final)))
    sorry, sorry_now = _apology_words(original), _apology_words(final)
    if sorry_now and sorry >= APOLOGY_LONG and sorry_now <= sorry / 2:
        rules.append("shorter-apology")
    rules += _flag("exclamation", "!" in original, "!" in final)
    rules += _flag("emoji", bool(_EMOJI.search(original)), bool(_EMOJI.search(final)))
    a, b = len(original.split()), len(final.split())
    if a and b <= 0.6 * a:
        rules.append("shorter")
    elif b and a <= 0.6 * b:
        rules.append("longer")
    return tuple(rules)


# --- the content of an edit -------------------------------------------------------------------

#: what varies from one reply to the next and is not the rule: addresses, links, dates, codes
#: that mix letters and digits, long numbers, and the number after an id word ("order 41").
#: Small numbers stay: "5 business days" and "7 business days" are two different rules.
_REPLY_IDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"), "<id>"),
    (re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.[\w-]+\.\S+", re.I), "<id>"),
    (
        re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
        "<id>",
    ),
    (
        re.compile(
            r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?|\b\d{1,2}/\d{1,2}/\d{2,4}\b"
        ),
        "<id>",
    ),
    (
        re.compile(
            r"\b((?:order|ticket|case|invoice|parcel|package|booking|reservation|account"
            r"|customer|tracking|item|sku|ref|reference|id|no|number)\b\.?\s*(?:number\s*)?#?\s*)"
            r"\d[\w-]*",
            re.I,
        ),
        r"\1<id>",
    ),
    (re.compile(r"#\s?\d[\w-]*"), "<id>"),
    (
        re.compile(
            # (not an ordinal, a time or a measure: 2nd, 24h, 5pm, 2-year, 30-day)
            r"\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])(?!\d+(?:st|nd|rd|th|h|am|pm|x|-[A-Za-z]+)\b)"
            r"[\w-]{3,}\b"
        ),
        "<id>",
    ),
    (re.compile(r"\b\d{4,}\b"), "<id>"),
)
#: words that say nothing on their own: an edit that only adds these adds no content
_FILLER = frozenset(
    """a an the and or but to of in on at for with by from as is are was be been it its this
    that these those you your we our us i me my they them their he she his her so just also
    will would can could do does did has have had ok okay please thanks thank hi hello hey dear
    sorry apologies apologise apologize regret inconvenience regards cheers sincerely wishes
    there here""".split()  # noqa: SIM905
)
_TOKEN = re.compile(r"[^\W_][\w'’-]*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_LEADING_GREETING = re.compile(rf"^\W*(?:{_GREETINGS})\b[^.!?,\n]{{0,40}}[.!?,\n]*\s*", re.I)
_TRAILING_SIGN_OFF = re.compile(
    rf"(?:^|(?<=[.!?\n]))\s*(?:{_SIGN_OFFS})\b[^.!?]{{0,40}}[.!?]*\s*$", re.I
)


def mask_reply_ids(text: str) -> str:
    """``text`` with the ids of one reply masked, case kept: "Your order 41 ships in 5 days"
    → "Your order <id> ships in 5 days"."""
    masked = unicodedata.normalize("NFKC", text)
    for pattern, mask in _REPLY_IDS:
        masked = pattern.sub(mask, masked)
    return " ".join(masked.split())


def content_template(text: str) -> str:
    """The identity of what a reply says: ids masked, case, punctuation and spacing removed."""
    folded = mask_reply_ids(text).casefold()
    return " ".join(re.sub(r"[^\w\s<>]+", " ", folded).split())


def _plain(text: str) -> str:
    """A reply without its tone: no greeting, sign-off or emoji; "!" read as "."."""
    plain = _EMOJI.sub(" ", unicodedata.normalize("NFKC", text))
    plain = _LEADING_GREETING.sub("", plain.strip())
    plain = _TRAILING_SIGN_OFF.sub("", plain)
    plain = re.sub(r"[.!]*![.!]*", ".", plain).strip()
    return plain[:1].upper() + plain[1:]


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip(" .!?,;:")]


def _substantive(token: str) -> bool:
    return token not in _FILLER and (len(token) > 1 or token.isdigit())


#: what an apology says besides being sorry: a sentence of only these words is tone
_APOLOGY_WORDS = frozenset(
    """trouble inconvenience frustration confusion hassle delay delays wait waiting caused any
    so very really truly deeply sincerely terribly sorry apologise apologize apologies regret
    mix-up""".split()  # noqa: SIM905
)


def _only_apology(sentence: str) -> bool:
    """Is the sentence an apology and nothing else ("Sorry for the trouble.")?"""
    words = {t for t in _TOKEN.findall(sentence.casefold()) if _substantive(t)}
    return bool(_APOLOGY.search(sentence)) and words <= _APOLOGY_WORDS


#: what courtesy says: a sentence of only these words (and filler) states nothing of the world
_COURTESY_WORDS = frozenset(
    """appreciate appreciated reaching reach out contacting contact glad happy help helps hope
    pleasure welcome great news wonderful awesome amazing fantastic lovely nice good day week
    today patience understanding let know questions question anything else feel free ask
    again really much very hear sure thing absolutely yay wow omg yeah yep thanks thank
    message messages writing touch getting reaching always truly value valued love""".split()  # noqa: SIM905
)


def _claims(text: str) -> str:
    """The sentences of ``text`` that state something: neither an apology nor courtesy
    ("Thanks so much for reaching out!") alone."""
    kept = []
    for sentence in _sentences(text):
        words = {t for t in _TOKEN.findall(sentence.casefold()) if _substantive(t)}
        if words and not _only_apology(sentence) and not words <= _COURTESY_WORDS:
            kept.append(sentence)
    return " ".join(kept)


def content_change(original: str, final: str) -> tuple[str, str]:
    """(what the final says that the draft did not, what the draft said that the final does
    not): the sentences that carry the substantive words added or removed, tone aside."""
    before, after = (
        [s for s in _sentences(_plain(text)) if not _only_apology(s)] for text in (original, final)
    )
    drafted = [(i, t) for i, s in enumerate(before) for t in _TOKEN.findall(s.casefold())]
    sent = [(i, t) for i, s in enumerate(after) for t in _TOKEN.findall(s.casefold())]
    matcher = difflib.SequenceMatcher(
        a=[t for _, t in drafted], b=[t for _, t in sent], autojunk=False
    )
    removed: set[int] = set()
    added: set[int] = set()
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op in ("replace", "delete"):
            removed |= {drafted[k][0] for k in range(i1, i2) if _substantive(drafted[k][1])}
        if op in ("replace", "insert"):
            added |= {sent[k][0] for k in range(j1, j2) if _substantive(sent[k][1])}
    # a courtesy put in place of another ("Thanks for your message.") is tone, not content
    said = [s for i, s in enumerate(after) if i in added and _claims(s)]
    # an apology taken out or cut down is the tone's rule, not content the draft said
    unsaid = [s for i, s in enumerate(before) if i in removed and not _APOLOGY.search(s)]
    return " ".join(said), " ".join(unsaid)


#: a sentence that adds at least this many substantive words states a rule of its own; one
#: that adds fewer goes with the statement beside it
STATEMENT_WORDS = 3
#: the lessons one event may teach (the reflect contract's ``MAX_LESSONS``)
RULES_PER_EDIT = 3


def content_statements(original: str, final: str) -> list[str]:
    """What the final says that the draft did not, as separate statements: each sentence of
    the final that adds ``STATEMENT_WORDS`` substantive words is one ("You can
    return it within 30 days." and "Sale items are exchanged, not refunded." are two rules);
    one that adds fewer ("Your refund has been issued.") goes with its neighbour. Empty when
    the edit adds nothing."""
    said, _unsaid = content_change(original, final)
    if not said:
        return []
    drafted = set()
    for sentence in _sentences(_plain(original)):
        drafted |= {t for t in _TOKEN.findall(sentence.casefold()) if _substantive(t)}
    parts: list[tuple[str, int]] = []
    for sentence in _sentences(said):
        new = {t for t in _TOKEN.findall(sentence.casefold()) if _substantive(t)} - drafted
        parts.append((sentence, len(new)))
    statements: list[str] = []
    pending = ""
    for text, weight in parts:
        if weight >= STATEMENT_WORDS or not statements:
            if weight >= STATEMENT_WORDS and pending and not statements:
                text = f"{pending} {text}"
                pending = ""
            if weight >= STATEMENT_WORDS:
                statements.append(text)
            else:
                pending = f"{pending} {text}".strip()
        else:
            statements[-1] = f"{statements[-1]} {text}"
    if pending:
        statements = [f"{pending} {statements[0]}", *statements[1:]] if statements else [pending]
    return statements if len(statements) > 1 else [said]


def left_out(original: str, final: str) -> str:
    """The phrases of the draft the operator took out (tone aside), joined by " … "."""
    a, b = _plain(original).split(), _plain(final).split()
    runs = []
    bare_a, bare_b = ([w.strip(".,;:?").casefold() for w in words] for words in (a, b))
    matcher = difflib.SequenceMatcher(a=bare_a, b=bare_b, autojunk=False)
    for op, i1, i2, _, _ in matcher.get_opcodes():
        words = a[i1:i2]
        if op in ("delete", "replace") and any(
            _substantive(t) for w in words for t in _TOKEN.findall(w.casefold())
        ):
            runs.append(" ".join(words).strip(" ,;:"))
    return " … ".join(runs)


def _promising(text: str) -> str:
    """The sentences of a reply that make a promise (``_PROMISE``)."""
    # courtesy ("thanks for reaching out today") promises nothing
    return " ".join(s for s in _sentences(_plain(text)) if _PROMISE.search(s) and _claims(s))


#: how a reply says "when it is ready" without a date: what replaces a promise
_HEDGE = re.compile(
    r"\b(?:as soon as|as quickly as|shortly|we(?:'ll| will) (?:let you know|keep you (?:posted|"
    r"updated)|update you|be in touch)|(?:cannot|can't|can not) (?:promise|guarantee)|no (?:exact|"
    r"fixed) date)\b",
    re.I,
)
_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty)\b",
    re.I,
)


def _hedges(said: str) -> bool:
    """Does what the final says only hedge (no date, no number: "as soon as the engineer has
    checked it")? Said in place of a promise, it is how the promise rule is kept, not a fact."""
    return all(_HEDGE.search(s) and not _NUMBER.search(s) for s in _sentences(said))


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


def taught(original: str, final: str | None) -> list[EditRule]:
    """The rules an edit teaches, content first, then a promise, then the tone; a rejected
    draft teaches one. Never empty: an edit that shows no rule teaches its rewording."""
    if final is None:
        return [EditRule("rejected", ("rejected",), unsaid=original)]
    shape = edit_rules(original, final)
    promise = tuple(n for n in shape if n.endswith("-promise"))
    tone = tuple(n for n in shape if n not in promise)
    said, unsaid = content_change(original, final)
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
    hedge = promise == ("removed-promise",) and bool(said) and _hedges(said)
    rules: list[EditRule] = []
    if said and not hedge:
        # each statement the operator added is a rule of its own, as many as the event's
        # lessons allow beside its promise and tone rules (the rest go with the last one)
        room = max(1, RULES_PER_EDIT - bool(promise) - bool(tone))
        statements = content_statements(original, final)
        if len(statements) > room:
            statements = [*statements[: room - 1], " ".join(statements[room - 1 :])]
        rules += [EditRule("content", ("said",), said=s, unsaid=unsaid) for s in statements]
    elif unsaid and not promise and set(tone) <= {"shorter"}:
        # nothing added, and no promise or tone rule explains what was removed: what the
        # operator took out is the rule ("shorter" says only that it was long, and the rule
        # says why: like "longer" beside new content, it is no tone rule of its own)
        gone = left_out(original, final)
        if gone:
            rules.append(EditRule("content", ("left-out",), unsaid=gone))
            tone = tuple(n for n in tone if n != "shorter")  # what was left out made it shorter
    elif unsaid and not promise and _claims(unsaid):
        # the tone changed too, and a sentence that states something went with it ("Shipping
        # is free to every country."): the tone does not explain a claim taken out
        gone = " … ".join(p for p in left_out(original, final).split(" … ") if _claims(p))
        if gone:
            rules.append(EditRule("content", ("left-out",), unsaid=gone))
            tone = tuple(n for n in tone if n != "shorter")
    if promise:
        # a removed promise may come with what the operator says in its place (a hedge)
        removed = promise[0].startswith("removed")
        rules.append(
            EditRule("promise", promise, said=said if hedge else "" if removed else promised,
                     unsaid=_promising(original) if removed else "")
        )  # fmt: skip
    if tone:
        rules.append(EditRule("tone", tone))
    if not rules:
        rules.append(EditRule("content", ("reworded",), said=_plain(final) or final))
    return rules


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
    found = set(_TOKEN.findall(text.casefold()))
    return found | {part for token in found for part in token.split("-") if part}


def assign(texts: Sequence[str], rules: Sequence[EditRule]) -> list[int]:
    """Which rule each lesson of an edit is about (an index into ``rules``): the one it names
    (a tag such as ``tone`` or ``removed-promise``), else the one whose words it uses most
    (for content, the words the operator wrote), else the content rule, else the first."""
    if len(rules) <= 1:
        return [0] * len(texts)
    fallback = next((i for i, r in enumerate(rules) if r.family == "content"), 0)
    chosen: list[int] = []
    for text in texts:
        tokens = _tokens(text)
        fits = []
        for rule in rules:
            words = _FAMILY_WORDS[rule.family]
            if rule.family == "content":
                words = words | {
                    t for t in _tokens(f"{rule.said} {rule.unsaid}")
                    if _substantive(t) and len(t) > 2
                }  # fmt: skip
            named = rule.family in tokens or any(name in tokens for name in rule.names)
            fits.append(10 * int(named) + len(tokens & words))
        best = max(fits)
        chosen.append(fits.index(best) if best else fallback)
    return chosen
