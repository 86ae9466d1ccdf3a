"""What a reply says, tone aside: the content half of reading an operator's edit (DESIGN §8a).

``digest.edits`` tells the rules an edit teaches; this module reads the words: a reply without
its tone (greeting, sign-off, emoji, apologies and courtesy), its sentences, the ids one reply
carries (masked, so the same rule about another order is the same rule), and what the final
says that the draft did not, cut into statements that each teach a rule of their own.

Pure functions on text.
"""

from __future__ import annotations

import difflib
import re
import unicodedata

#: greetings in the languages the product screens (a closed class of words)
GREETINGS = (
    r"hi|hello|hey|dear|good (?:morning|afternoon|evening)|greetings|guten (?:tag|morgen|abend)"
    r"|hallo|liebe[rs]?|sehr geehrte[rs]?|bonjour|bonsoir|salut|cher|chère|hola|buenos días"
    r"|buenas tardes|estimad[oa]|olá|bom dia|boa tarde|prezad[oa]|buongiorno|buonasera|ciao"
    r"|gentile|beste|geachte|goedemorgen|goedemiddag|hej|hejsan|dzień dobry|szanown[aye]|merhaba"
)
GREETING = re.compile(rf"^\W*({GREETINGS})\b", re.I)
#: a sign-off ends the reply, maybe with a name after it ("Kind regards, the Lumen team")
#: sign-offs in the languages the product screens (a closed class of phrases)
SIGN_OFFS = (
    r"kind regards|best regards|best wishes|regards|cheers|sincerely|thanks again"
    r"|have a (?:great|nice) day|mit freundlichen grüßen|freundliche grüße|viele grüße"
    r"|beste grüße|liebe grüße|bien cordialement|cordialement|salutations|atentamente"
    r"|un saludo|saludos|atenciosamente|cumprimentos|cordiali saluti|distinti saluti"
    r"|met vriendelijke groet(?:en)?|vriendelijke groet(?:en)?|med vänliga hälsningar"
    r"|vänliga hälsningar|pozdrawiam|z poważaniem|saygılarımla"
)
#: the name after a sign-off may stand on the next line ("Kind regards,\nthe Lumen team")
SIGN_OFF = re.compile(rf"\b({SIGN_OFFS})\b[^.!?]{{0,40}}[.!?]*\s*$", re.I)
APOLOGY = re.compile(r"\b(sorry|apologi[sz]e|apologies|regret)\b", re.I)
EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf\ufe0f]")


# --- what a reply says -------------------------------------------------------------------

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
TOKEN = re.compile(r"[^\W_][\w'’-]*")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_LEADING_GREETING = re.compile(rf"^\W*(?:{GREETINGS})\b[^.!?,\n]{{0,40}}[.!?,\n]*\s*", re.I)
_TRAILING_SIGN_OFF = re.compile(
    rf"(?:^|(?<=[.!?\n]))\s*(?:{SIGN_OFFS})\b[^.!?]{{0,40}}[.!?]*\s*$", re.I
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


def plain(text: str) -> str:
    """A reply without its tone: no greeting, sign-off or emoji; "!" read as "."."""
    plain = EMOJI.sub(" ", unicodedata.normalize("NFKC", text))
    plain = _LEADING_GREETING.sub("", plain.strip())
    plain = _TRAILING_SIGN_OFF.sub("", plain)
    plain = re.sub(r"[.!]*![.!]*", ".", plain).strip()
    return plain[:1].upper() + plain[1:]


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text) if s and s.strip(" .!?,;:")]


def substantive(token: str) -> bool:
    return token not in _FILLER and (len(token) > 1 or token.isdigit())


#: what an apology says besides being sorry: a sentence of only these words is tone
_APOLOGY_WORDS = frozenset(
    """trouble inconvenience frustration confusion hassle delay delays wait waiting caused any
    so very really truly deeply sincerely terribly sorry apologise apologize apologies regret
    mix-up""".split()  # noqa: SIM905
)


def only_apology(sentence: str) -> bool:
    """Is the sentence an apology and nothing else ("Sorry for the trouble.")?"""
    words = {t for t in TOKEN.findall(sentence.casefold()) if substantive(t)}
    return bool(APOLOGY.search(sentence)) and words <= _APOLOGY_WORDS


#: what courtesy says: a sentence of only these words (and filler) states nothing of the world
_COURTESY_WORDS = frozenset(
    """appreciate appreciated reaching reach out contacting contact glad happy help helps hope
    pleasure welcome great news wonderful awesome amazing fantastic lovely nice good day week
    today patience understanding let know questions question anything else feel free ask
    again really much very hear sure thing absolutely yay wow omg yeah yep thanks thank
    message messages writing touch getting reaching always truly value valued love""".split()  # noqa: SIM905
)


def claims(text: str) -> str:
    """The sentences of ``text`` that state something: neither an apology nor courtesy
    ("Thanks so much for reaching out!") alone."""
    kept = []
    for sentence in sentences(text):
        words = {t for t in TOKEN.findall(sentence.casefold()) if substantive(t)}
        if words and not only_apology(sentence) and not words <= _COURTESY_WORDS:
            kept.append(sentence)
    return " ".join(kept)


def content_change(original: str, final: str) -> tuple[str, str]:
    """(what the final says that the draft did not, what the draft said that the final does
    not): the sentences that carry the substantive words added or removed, tone aside."""
    before, after = (
        [s for s in sentences(plain(text)) if not only_apology(s)] for text in (original, final)
    )
    drafted = [(i, t) for i, s in enumerate(before) for t in TOKEN.findall(s.casefold())]
    sent = [(i, t) for i, s in enumerate(after) for t in TOKEN.findall(s.casefold())]
    matcher = difflib.SequenceMatcher(
        a=[t for _, t in drafted], b=[t for _, t in sent], autojunk=False
    )
    removed: set[int] = set()
    added: set[int] = set()
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op in ("replace", "delete"):
            removed |= {drafted[k][0] for k in range(i1, i2) if substantive(drafted[k][1])}
        if op in ("replace", "insert"):
            added |= {sent[k][0] for k in range(j1, j2) if substantive(sent[k][1])}
    # a courtesy put in place of another ("Thanks for your message.") is tone, not content
    said = [s for i, s in enumerate(after) if i in added and claims(s)]
    # an apology taken out or cut down is the tone's rule, not content the draft said
    unsaid = [s for i, s in enumerate(before) if i in removed and not APOLOGY.search(s)]
    return " ".join(said), " ".join(unsaid)


#: a sentence that adds at least this many substantive words states a rule of its own; one
#: that adds fewer goes with the statement beside it
STATEMENT_WORDS = 3


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
    for sentence in sentences(plain(original)):
        drafted |= {t for t in TOKEN.findall(sentence.casefold()) if substantive(t)}
    parts: list[tuple[str, int]] = []
    for sentence in sentences(said):
        new = {t for t in TOKEN.findall(sentence.casefold()) if substantive(t)} - drafted
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
    a, b = plain(original).split(), plain(final).split()
    runs = []
    bare_a, bare_b = ([w.strip(".,;:?").casefold() for w in words] for words in (a, b))
    matcher = difflib.SequenceMatcher(a=bare_a, b=bare_b, autojunk=False)
    for op, i1, i2, _, _ in matcher.get_opcodes():
        words = a[i1:i2]
        if op in ("delete", "replace") and any(
            substantive(t) for w in words for t in TOKEN.findall(w.casefold())
        ):
            runs.append(" ".join(words).strip(" ,;:"))
    return " … ".join(runs)
