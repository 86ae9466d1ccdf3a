"""A reply's words without its tone (DESIGN §8a): the greetings, sign-offs, emoji, apologies
and courtesy that make its tone (closed classes of words, in the languages the product
screens), its sentences, its substantive words, the ids one reply carries (masked, so the same
rule about another order is the same rule), and the sentences that state something.

``digest.edits`` reads the tone rules of an edit with these; ``digest.edit_content`` what the
final says that the draft did not. Pure functions on text.
"""

from __future__ import annotations

import re
import unicodedata

from digest.masking import EMAIL, URL, UUID

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
#: an apology, in English and the languages the product reads replies in (a stem where the
#: word inflects: "pahoittelemme", "przepraszamy", "omlouváme se")
APOLOGY = re.compile(
    r"\b(sorry|apologi[sz]e|apologies|regret"
    r"|entschuldig\w*|tut (?:uns|mir) leid|bedauern|désolée?s?|nos excuses|lo sient[oe]|"
    r"disculp\w+|perdón|mi dispiace|ci dispiace|scus[ae]\w*|desculp\w+|lamentamos|"
    r"sinto muito|het spijt (?:ons|me)|onze excuses|förlåt|ursäkta|beklag(?:ar|er)|"
    r"undskyld|unnskyld|przeprasz\w+|omlouv\w+|pahoittel\w+|anteeksi|özür dile\w+)\b",
    re.I,
)
EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf\ufe0f]")
#: a title and a name after a reply's greeting ("Dear Ms Okafor", "Bonjour Madame Lefèvre",
#: "Guten Tag Herr Becker"): the customer greeted by name
TITLED_NAME = re.compile(
    r"^\W*(?:" + GREETINGS + r")\W+(?:mr|mrs|ms|miss|mx|dr|herr|frau|madame|monsieur"
    r"|mademoiselle|mme|mlle|señor|señora|señorita|sr|sra|srta|senhor|senhora|signor|signora"
    r"|sig|sig\.ra|dott|meneer|mevrouw|dhr|mevr|pan|pani|paní|pane|herra|rouva|bay|bayan)"
    r"\.?\s+[^\W\d_][\w'’-]+",
    re.I,
)
#: chat shorthand a reply should spell out ("pls", "ur", "ty", "thx"): a word of its own,
#: none of which is a word of the languages replies are read in
SHORTHAND = re.compile(
    r"(?<![\w'’])(?:pls|plz|ur|ty|thx|thnx|tnx|b4|btw|idk|imo|np|lol|cya|gr8|ppl|msg|pic)"
    r"(?![\w'’])",
    re.I,
)
#: the fewest shorthand words a draft must use for spelling them out to be a rule
SHORTHAND_WORDS = 2


# --- what a reply says -------------------------------------------------------------------

#: what varies from one reply to the next and is not the rule: addresses, links, dates, codes
#: that mix letters and digits, long numbers, and the number after an id word ("order 41").
#: Small numbers stay: "5 business days" and "7 business days" are two different rules.
_REPLY_IDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (EMAIL, "<id>"),
    (URL, "<id>"),
    (UUID, "<id>"),
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
#: a short word's period before a figure or a lower-case word is an abbreviation's ("kl. 14",
#: "ca. 9 bis 17 Uhr", "Room no. 12", "approx. 3 pm", "5 p.m. tomorrow"), not a sentence's end
_ABBREVIATED = "".join(rf"(?<!\b[^\W\d_]{{{n}}}\.)" for n in (1, 2, 3)) + "".join(
    rf"(?<!\b{word}\.)" for word in ("approx", "incl", "excl", "inkl", "bzw", "zzgl", "resp")
)
SENTENCE_END = re.compile(rf"(?<=[.!?])(?:(?<=[!?])|{_ABBREVIATED}|(?!\s+[\da-zß-ÿ]))\s+|\n+")
#: a greeting and the name after it, up to the punctuation that ends it ("Hi Anna,")…
_LEADING_GREETING = re.compile(rf"^\W*(?:{GREETINGS})\b[^.!?,\n]{{0,40}}[.!?,\n]+\s*", re.I)
#: …or, with none near ("Hey Tom 😊 your test is booked"), the greeting and a capitalised name
_BARE_GREETING = re.compile(rf"^\W*(?:{GREETINGS})\b(?:\s+(?-i:[A-ZÀ-Þ])[\w'’-]*){{0,2}}\s*", re.I)
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
    greeted = _LEADING_GREETING.match(plain.strip())
    plain = (_LEADING_GREETING if greeted else _BARE_GREETING).sub("", plain.strip())
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


#: an apology for what happened to the customer ("I'm sorry the lamp arrived cracked", "sorry
#: for the wait"), not a "Sorry, we cannot ship to PO boxes" that states a rule
_ACKNOWLEDGES = re.compile(
    r"\b(?:sorry|apologi[sz]e|apologies|regret)\s+(?:for|about|that|to hear|to see|your|the"
    r"|this|it)\b",
    re.I,
)


def only_apology(sentence: str) -> bool:
    """Is the sentence an apology and nothing else ("Sorry for the trouble.", "I'm sorry your
    order 41 is late.")? An apology that names no figure acknowledges the customer's trouble
    (the tone's rule); what the business does about it is said in another sentence."""
    if not APOLOGY.search(sentence):
        return False
    words = {t for t in TOKEN.findall(sentence.casefold()) if substantive(t)}
    if words <= _APOLOGY_WORDS:
        return True
    return bool(_ACKNOWLEDGES.search(sentence)) and not re.search(r"\d", mask_reply_ids(sentence))


#: what courtesy says: a sentence of only these words (and filler) states nothing of the world
_COURTESY_WORDS = frozenset(
    """appreciate appreciated reaching reach out contacting contact glad happy help helps hope
    pleasure welcome great news wonderful awesome amazing fantastic lovely nice good day week
    today patience understanding let know questions question anything else feel free ask
    again really much very hear sure thing absolutely yay wow omg yeah yep thanks thank
    message messages writing touch getting reaching always truly value valued love mate buddy
    pal dude folks guys lol haha cool alright okay ok np""".split()  # noqa: SIM905
)


def _courtesy(word: str) -> bool:
    """Is ``word`` one of ``_COURTESY_WORDS``, maybe inflected ("asking", "helped")?"""
    if word in _COURTESY_WORDS:
        return True
    for ending in ("ing", "ed", "s"):
        stem = word.removesuffix(ending)
        if stem != word and (stem in _COURTESY_WORDS or f"{stem}e" in _COURTESY_WORDS):
            return True
    return False


def claims(text: str) -> str:
    """The sentences of ``text`` that state something: neither an apology nor courtesy
    ("Thanks so much for reaching out!", "Thanks for asking.") alone, nor a one-word
    exclamation ("Amazing!!!", "Wow!"): a statement takes two words at least."""
    kept = []
    for sentence in sentences(text):
        tokens = TOKEN.findall(sentence.casefold())
        words = {t for t in tokens if substantive(t)}
        if len(tokens) < 2:
            continue
        if words and not only_apology(sentence) and not all(map(_courtesy, words)):
            kept.append(sentence)
    return " ".join(kept)
