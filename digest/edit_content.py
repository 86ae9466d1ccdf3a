"""What a reply says, tone aside: the content half of reading an operator's edit (DESIGN §8a).

``digest.edits`` tells the rules an edit teaches; this module reads what the final says that
the draft did not, cut into statements that each teach a rule of their own, and what the draft
said that the final left out. A reply's words without its tone (greeting, sign-off, emoji,
apologies and courtesy), its sentences and its ids are read in ``digest.reply_text``.

Pure functions on text.
"""

from __future__ import annotations

import difflib
import re

from digest.reply_text import (
    APOLOGY,
    TOKEN,
    claims,
    mask_reply_ids,
    only_apology,
    plain,
    sentences,
    substantive,
)


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


#: two clauses of one sentence joined so ("…from 9:00 to 15:00, and children bring …") may be
#: two statements (a list, a consequence with "so", a contrast, or a "; " stays one)
_CLAUSE_JOIN = re.compile(r",\s+(?:and|und|et|y)\s+", re.I)
#: a sentence that reports what was done for this customer ("We have passed your claim to the
#: refunds team", "Your parcel has been handed to the courier"): this case's news, no rule
_REPORT = re.compile(
    r"^\W*(?:we|i|your|the|this|it|our)\b(?:\s+[\w'-]+){0,4}?\s+(?:has|have|had|'ve)\s+"
    r"(?:just\s+|already\s+|now\s+)?(?:been\s+)?[a-z]+(?:ed|en|wn|ne|t)\b",
    re.I,
)


#: a word the final writes another way than the draft (another inflection, a compound built
#: on it: "invoices" for "invoice", "zurückgesetzt" for "zurück") is still the draft's word:
#: its shorter form has this many letters at least, and the two this much in common
_WORD_FORM_LETTERS = 4
_WORD_FORM_RATIO = 85


def _drafted(word: str, drafted: set[str]) -> bool:
    """Did the draft say ``word``, maybe in another form (``_WORD_FORM_*``)?"""
    if word in drafted:
        return True
    for other in drafted:
        short, long_ = sorted((word, other), key=len)
        if len(short) < _WORD_FORM_LETTERS or short.isdigit():
            continue
        if long_.startswith(short):
            return True
        if len(short) > _WORD_FORM_LETTERS and _alike(word, other, len(short)):
            return True
    return False


def _alike(word: str, other: str, shorter: int) -> bool:
    """Is difflib's ratio of the two words ``_WORD_FORM_RATIO`` % at least? (difflib, not
    rapidfuzz: the capture path that keys edits imports no rapidfuzz.) Its upper bounds turn
    most pairs down before the matching runs, as ``difflib.get_close_matches`` does: the
    shorter word's length (``real_quick_ratio``, here in integers, which can only err towards
    running the match), then the letters in common (``quick_ratio``)."""
    if 200 * shorter < _WORD_FORM_RATIO * (len(word) + len(other)):
        return False
    matcher = difflib.SequenceMatcher(a=word, b=other, autojunk=False)
    return (
        100 * matcher.quick_ratio() >= _WORD_FORM_RATIO
        and 100 * matcher.ratio() >= _WORD_FORM_RATIO
    )


def _figures(text: str) -> set[str]:
    """The words of ``text`` that hold a figure ("30", "9am", "24h"), ids masked."""
    return {t for t in TOKEN.findall(mask_reply_ids(text).casefold()) if any(map(str.isdigit, t))}


def _new_words(text: str, drafted: set[str]) -> int:
    """How much of a statement ``text`` is new beside the draft's words: its substantive words
    the draft did not say in any form; a figure the draft did not give ("30 days" where the
    draft said "15 days": a correction) is a statement on its own."""
    words = {t for t in TOKEN.findall(text.casefold()) if substantive(t)}
    new = {w for w in words if not _drafted(w, drafted)}
    if _figures(text) - drafted:
        return max(len(new), STATEMENT_WORDS)
    return len(new)


#: a clause that opens with a word pointing back ("…, and it is deducted from the price"):
#: it says more of the clause before, no statement of its own
_POINTS_BACK = re.compile(
    r"^\W*(?:it|this|that|they|these|those|which|es|das|dies|il|elle|ils|cela|ce|ello|esto"
    r"|eso|isso|esso|ciò|dit|dat|det|den|dette)\b",
    re.I,
)


def _clauses(sentence: str, drafted: set[str]) -> list[str]:
    """A sentence as the statements it joins: split at ", and" only where each side adds
    ``STATEMENT_WORDS`` words of its own and no later side points back to the one before
    (``_POINTS_BACK``)."""
    parts = _CLAUSE_JOIN.split(sentence)
    if len(parts) < 2 or any(_new_words(p, drafted) < STATEMENT_WORDS for p in parts):
        return [sentence]
    if any(_POINTS_BACK.match(p) for p in parts[1:]):
        return [sentence]
    return [p[:1].upper() + p[1:].rstrip(" ,") + ("" if p[-1:] in ".!?" else ".") for p in parts]


def _words_of(text: str) -> set[str]:
    return {t for t in TOKEN.findall(text.casefold()) if substantive(t)}


def _reworded(text: str, weight: int, drafted: set[str]) -> bool:
    """Is a part of what the final adds the draft's own sentence reworded ("Ihr Passwort wurde
    zurückgesetzt" for "ich setz dir das Passwort zurück"): no statement of its own, and at
    least half its words the draft's? Beside a statement it is no rule."""
    words = _words_of(text)
    if weight >= STATEMENT_WORDS or not words:
        return False
    return 2 * sum(_drafted(w, drafted) for w in words) >= len(words)


def says_more(original: str, said: str) -> bool:
    """Does ``said`` (what the final adds) state something the draft did not: a sentence or
    clause with ``STATEMENT_WORDS`` new words, or a figure the draft did not give? "Your order
    has shipped." for "ur order's shipped lol" says nothing more: the draft reworded."""
    drafted = _words_of(plain(original))
    return any(_new_words(sentence, drafted) >= STATEMENT_WORDS for sentence in sentences(said))


def takes_out(phrase: str, final: str) -> bool:
    """Does a phrase the operator took out carry ``STATEMENT_WORDS`` words the final does not
    say ("Delivery is free to every country", not "See ya" or "Gonna")?"""

    def words(text: str) -> set[str]:  # "refund's" is "refund"; "ur", "ya" say nothing
        return {re.sub(r"['’]\w{1,2}$", "", w) for w in _words_of(text) if len(w) > 2}

    return len(words(phrase) - words(plain(final))) >= STATEMENT_WORDS


#: a sentence that opens by thanking the reader is courtesy, whatever it goes on to praise
_THANKS = re.compile(
    r"^\W*(?:thank|thanks|many thanks|merci|danke|vielen dank|gracias|grazie|obrigad[oa]"
    r"|bedankt|dank je|dank u|tack|dziękuj\w*|teşekkür\w*)\b",
    re.I,
)


#: where a draft's sentence is cut into clauses to find the claim taken out of it: commas,
#: semicolons and the coordinating conjunctions of the languages the product screens
_CLAUSE_CUT = re.compile(
    r"[,;:]\s*|\s+(?:and|but|und|aber|et|mais|y|pero|e|ma|mas|en|maar|och|men|i|ale|ve|ama)\s+",
    re.I,
)
#: two words are one in another form when they open alike this far ("zurückschicken",
#: "zurücksenden"); what counts as answering a claim is read generously
_SAME_OPENING = 6


def _answers(word: str, words: set[str]) -> bool:
    """Does one of ``words`` say ``word``, in any form ("dog", "dogs"; "richiama",
    "richiamerà")?"""
    for other in words:
        short, long_ = sorted((word, other), key=len)
        if short == long_ or _drafted(word, {other}):
            return True
        if len(short) >= 3 and long_.startswith(short) and len(long_) - len(short) <= 2:
            return True
        if len(short) >= _SAME_OPENING and short[:_SAME_OPENING] == long_[:_SAME_OPENING]:
            return True
    return False


def dropped_claims(original: str, final: str, keep: re.Pattern[str] | None = None) -> list[str]:
    """The claims of the draft the operator took out and put nothing in place of ("It is
    completely painless and takes 5 minutes." beside an added "Please remove metal jewellery
    before the scan."): the clauses of a draft sentence none of whose words the final says in
    any form, run together, ``STATEMENT_WORDS`` words at least, in a sentence that is no
    apology, courtesy or thanks (the tone's), nor one ``keep`` finds (a promise: its own
    rule). A clause that shares a word with the final is the draft reworded or corrected,
    part of the content the final says. A draft the final keeps nothing of was rewritten, not
    edited: what it said is no claim taken out."""
    said = {w for w in _words_of(plain(final))}
    drafted = sentences(plain(original))
    kept = any(_answers(w, said) for s in drafted for w in _words_of(s) if len(w) > 2)
    found: list[str] = []
    for sentence in drafted if kept else []:
        if APOLOGY.search(sentence) or _THANKS.search(sentence) or not claims(sentence):
            continue
        if keep is not None and keep.search(sentence):
            continue
        cuts = [0, *(i for m in _CLAUSE_CUT.finditer(sentence) for i in m.span()), len(sentence)]
        spans = [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts), 2)]
        run: list[tuple[int, int]] = []
        for start, end in [*spans, (0, 0)]:  # (0, 0) ends the last run
            words = {w for w in _words_of(sentence[start:end]) if len(w) > 2}
            if end > start and words and not any(_answers(w, said) for w in words):
                run.append((start, end))
                continue
            gone = sentence[run[0][0] : run[-1][1]].strip(" .!?") if run else ""
            if gone and claims(gone) and takes_out(gone, final):
                found.append(gone[:1].upper() + gone[1:] + ".")
            run = []
    return found


def content_statements(original: str, final: str) -> list[str]:
    """What the final says that the draft did not, as separate statements: each sentence (or
    clause joined by ", and") of the final that adds ``STATEMENT_WORDS`` substantive
    words is one ("You can return it within 30 days." and "Sale items are exchanged, not
    refunded." are two rules); one that adds fewer goes with its neighbour; one that reports
    what was done for this customer ("Your refund has been issued.") is no rule beside a
    statement that is. Empty when the edit adds nothing."""
    said, _unsaid = content_change(original, final)
    if not said:
        return []
    drafted = set()
    for sentence in sentences(plain(original)):
        drafted |= {t for t in TOKEN.findall(sentence.casefold()) if substantive(t)}
    parts: list[tuple[str, int]] = []
    for sentence in sentences(said):
        for clause in _clauses(sentence, drafted):
            parts.append((clause, _new_words(clause, drafted)))
    stated = [
        (text, weight)
        for text, weight in parts
        if not _REPORT.search(text) and not _reworded(text, weight, drafted)
    ]
    if any(weight >= STATEMENT_WORDS for _, weight in stated):
        parts = stated
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
    return statements if len(statements) > 1 or parts is stated else [said]


#: a sentence that opens with its condition ("If they don't fit, you can exchange them …")
_CONDITION_FIRST = re.compile(
    r"^(?P<cond>(?:if|when|once|unless|as long as|in case)\b[^,.;:!?]{3,80}),\s+"
    r"(?P<main>[^.!?]{8,})(?P<end>[.!?]?)$",
    re.I,
)


#: the words a reply sentence opens with to draw attention to what follows ("Please note:",
#: "Bitte beachten Sie:", "Tenga en cuenta que"), in the languages the edits are read in:
#: they say nothing of the rule
_LEAD_IN = re.compile(
    r"^(?:please (?:note|be aware)(?: that)?|kindly note(?: that)?|note that|be aware that"
    r"|just so you know|for your information|bitte beachten sie(?:,? dass)?|beachten sie"
    r"(?: bitte)?(?:,? dass)?|bitte beachte(?:,? dass)?|veuillez noter(?: que)?|notez(?: bien)?"
    r" que|à noter|tenga en cuenta(?: que)?|ten en cuenta(?: que)?|le informamos(?: de)? que"
    r"|note que|observe que|lembramos que|si prega di notare(?: che)?|tenga presente(?: che)?"
    r"|nota bene|let op|houd er rekening mee(?: dat)?|houdt u er rekening mee(?: dat)?"
    r"|observera(?: att)?|notera(?: att)?|bemærk(?: venligst)?(?: at)?|vær opmærksom på(?: at)?"
    r"|merk deg(?: at)?|vær oppmerksom på(?: at)?|prosimy pamiętać(?:,? że)?|informujemy(?:,? że)?"
    r"|upozorňujeme(?:,? že)?|huomaa(?:,? että)?|huomioithan(?:,? että)?|lütfen dikkat)"
    r"\s*[:,–-]?\s+(?=\S)",
    re.I,
)
#: the fewest words a sentence must keep after its lead-in for the lead-in to be taken off
_AFTER_LEAD_IN = 3


def without_lead_in(sentence: str) -> str:
    """``sentence`` without the words that only draw attention to it ("Bitte beachten Sie:
    Aufträge nach 14 Uhr …" → "Aufträge nach 14 Uhr …"), capitalised; as it is when little
    would be left."""
    found = _LEAD_IN.match(sentence)
    if not found or len(sentence[found.end() :].split()) < _AFTER_LEAD_IN:
        return sentence
    rest = sentence[found.end() :]
    return rest[:1].upper() + rest[1:]


def main_clause_first(text: str) -> str:
    """``text`` with the main clause of its first sentence first: "If they don't fit, you can
    exchange them within 30 days." → "You can exchange them within 30 days if they don't
    fit." (what the operator offers, not its condition, opens a lesson and its title), and
    without the words that only draw attention to it (``without_lead_in``: "Please note:")."""
    first, *rest = sentences(text) or [text]
    stripped = without_lead_in(first)
    if stripped != first:
        return main_clause_first(" ".join([stripped, *rest]))
    found = _CONDITION_FIRST.match(first)
    if not found:
        return text
    main, cond = found.group("main").strip(), found.group("cond").strip()
    first = f"{main[:1].upper()}{main[1:]} {cond[:1].lower()}{cond[1:]}{found.group('end')}"
    return " ".join([first, *rest])


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
