"""Reversals: text saying that a requirement was removed, replaced or inverted.

"The API no longer accepts the Authorization header; send X-Api-Key instead", "deprecated in
favour of v2", "now requires a billing address", "ab sofort nicht mehr", "ya no se acepta":
what used to hold holds no more, and a lesson drawn from it supersedes the lesson it reverses.
``reversal_terms`` finds such a statement and the words it is about; ``reverses`` says whether
a new text reverses an old one (it states a reversal about words the old one speaks of).

Pure functions on text, cheap, in the languages the injection screen reads. The offline judge
uses them to answer a reconcile request as a model would; nothing here decides on its own
what a real model is asked.
"""

from __future__ import annotations

import re
import unicodedata

from digest.bounded import memo
from digest.function_words import FUNCTION_WORDS
from digest.pattern_start import built_once, for_existence
from digest.reversal_markers import MARKERS

#: every marker of ``digest.reversal_markers`` as one pattern (an error family of changed
#: requirements reads it too)
REVERSAL_PATTERN = "|".join(f"(?:{m})" for m in MARKERS)
_MARKER = re.compile(REVERSAL_PATTERN, re.IGNORECASE)


@built_once
def _marker_found() -> re.Pattern[str]:
    """``_MARKER`` regrouped to tell whether a text holds a marker, several times faster
    (``digest.pattern_start.for_existence``: it finds a marker exactly where ``_MARKER``
    does, but not always the same one); compiled on first use, not on import."""
    return for_existence(_MARKER)


#: words too common (or too much the rules' own template) to say what a reversal is about
_COMMON = frozenset(
    """the and for with that this from into onto over your you are was were has have had not
    any more longer now use used uses using instead send sent call called calling calls tool
    tools error errors failed fails fail failure with without when before after every must
    should need needs required requires require accept accepts accepted longer anymore is be
    been being it its it's of on in to a an or as at by no do does did can cannot will would
    observed check make sure first again same api request requests value values field fields
    parameter parameters argument arguments header headers please version""".split()  # noqa: SIM905
)
_WORD = re.compile(r"[^\W\d_][\w-]{2,}", re.UNICODE)
#: a short name in quotes: a parameter or a field an error names ('q', "sku")
_NAMED = re.compile(r"""['"]([\w.-]{1,40})['"]""")
#: a name in backticks (a tool's label): the subject both texts share, not what changed
_LABEL = re.compile(r"`[^`\n]{1,80}`")


def _plain(word: str) -> str:
    """A word without its plural ending ("bodies" is "body", "headers" "header"): a reversal
    speaks of a thing in the number its sentence needs."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3 and "_" not in word:
        return word[:-1]
    return word


#: one thing a masked id names ("Loan ‹id›", "order #‹id›"): a sentence about it speaks of
#: that one loan's or order's state ("Loan ‹id› is no longer renewable"), not of what the
#: tool asks for, so the word naming the instance is not what a reversal is about
_INSTANCE = re.compile(r"[^\W\d_][\w-]*\s*#?\s*[‹<]id[›>]")


def _words(text: str) -> set[str]:
    text = _INSTANCE.sub(" ", _LABEL.sub(" ", text))
    folded = unicodedata.normalize("NFKC", text).casefold()
    # a name the text quotes is what it is about, however short ('q', "id")
    words: set[str] = set(_NAMED.findall(folded))
    for word in _WORD.findall(folded):
        # a compound names its parts too ("Authorization-Header", "X-Api-Key")
        words.update(part for part in (word, *word.split("-")) if len(part) >= 3)
    return {_plain(w) for w in words - _COMMON - FUNCTION_WORDS} - _COMMON


def about_words(text: str) -> set[str]:
    """The words ``text`` speaks of, read as ``reversal_terms`` reads a reversal's."""
    return _words(text)


def reversal_sentences(text: str) -> list[str]:
    """The sentences of ``text`` that state a reversal (the sentence around each marker)."""
    return list(_reversal_sentences(text))


#: texts whose reversal sentences a process remembers, and their bytes (``digest.bounded``):
#: reconciliation reads one owner answer's beside each neighbour of its question (in the
#: throughput stream, issue 27: 32 distinct texts in 104 asks per 1,000 events)
SENTENCES_KEPT, SENTENCES_BYTES = 512, 2**18


@memo(SENTENCES_KEPT, SENTENCES_BYTES, digest_keys=True)
def _reversal_sentences(text: str) -> tuple[str, ...]:
    sentences: list[str] = []
    for found in _MARKER.finditer(text):
        start = max(text.rfind(".", 0, found.start()), text.rfind("\n", 0, found.start())) + 1
        end_candidates = [i for i in (text.find(".", found.end()), text.find("\n", found.end()))]
        end = min([i for i in end_candidates if i >= 0], default=len(text))
        sentences.append(text[start:end])
    return tuple(sentences)


def says_only_a_change(clause: str) -> bool:
    """Does ``clause`` say only that something changed, naming nothing ("Nicht mehr", "Plus
    maintenant", "Non, già non più", "Ya no")? Its markers and an opening yes or no aside, no
    word is left."""
    if not states_reversal(clause) or any(c.isdigit() for c in clause):
        return False  # a figure is named ("we now open at 8"): it says what changed
    rest = _MARKER.sub(" ", clause)
    opening = _NO.match(rest) or _YES.match(rest)
    return not _words(rest[opening.end() :] if opening else rest)


def reversal_terms(text: str) -> set[str]:
    """The words a reversal in ``text`` is about (the sentence around each marker), or an
    empty set when the text states no reversal."""
    terms: set[str] = set()
    for sentence in reversal_sentences(text):
        terms |= _words(_ANOTHER.sub(" ", sentence))
    return terms


#: another instance of what the sentence's instance is ("choose another class", "elija otra
#: clase"): the word names the instance's kind, not what the tool asks for
_ANOTHER = re.compile(
    r"\b(?:another|other|otr[oa]s?|autres?|andere[nrs]?|altr[oaie]|outr[oa]s?|annan|annat"
    r"|andra|anden|andet|andre|inn[yaei]|jin[ýáéou]|toinen|başka)\s+[^\W\d_][\w-]*",
    re.IGNORECASE,
)


#: what a policy speaks of: a check, a permission, a role. A reversal from run text never
#: supersedes a lesson about one (a tool's error may report an API change; whether a refund
#: needs a manager is the owner's to change), and a reversal that claims one is a claim.
_POLICY = re.compile(
    r"approv|authori[sz]|permission|identity|consent|manager|supervisor"
    r"|admin|operator|owner|\brole|staff|kyc|mfa|2fa|two-factor|sign-?off"
    r"|genehmig|freigabe|aprob|autoriz|gerente|responsable"
    r"|approuv|autoris|approva|autorizz|одобр|разреш|审批|批准"
    r"|权限|承認|権限|승인|권한",
    re.IGNORECASE,
)
#: policy words a validation error uses of its own fields ("'phone' is not allowed", "over
#: the limit"): a policy only in a text that names no argument, field or header at all
_WEAK_POLICY = re.compile(
    r"allowed|permitted|verif|limit|threshold|polic|erlaubt|prüf|verific|límite|limite"
    r"|vérif|plafond|verifica|провер|лимит",
    re.IGNORECASE,
)
#: what a tool's own interface speaks of: its arguments, fields, endpoints, formats
_INTERFACE = re.compile(
    r"param|argument|\bfield|header|endpoint|column|attribute|propert|schema|format|\bversion"
    r"|\bv\d|json|\bxml|\bcsv|encoding|\bflag|query|payload|\burl|\bpath|feld|kopf|champ"
    r"|en-tête|campo|encabezado|cabeçalho|intestazione|параметр|поле|заголов|参数|字段|パラメータ"
    r"|フィールド|ヘッダー|매개변수|필드|헤더",
    re.IGNORECASE,
)
_POLICY_CLAUSE = re.compile(r"[,;:.!?\n]\s*")
#: a word that names an interface item: "Authorization header", "approval field", or a word
#: right before a quoted name ("an approved 'template_id'")
_NAME_BEFORE = re.compile(
    r"([\w-]+)\s+(?=(?:param|argument|field|header|column|attribute|propert|flag)\w*\b"
    r"""|['"][\w.-]{1,40}['"])""",
    re.IGNORECASE,
)
#: an HTTP header's name spelled as one ("Authorization", "X-Approval-Token"): in a text that
#: names an interface item it is that header, not a policy (only these spellings: a German
#: noun is capitalised too, and "Genehmigung" stays a policy word)
_HEADER_NAME = re.compile(r"\b(?:Proxy-)?Authori[sz]ation\b|\bX-[A-Za-z][\w-]*")
#: an HTTP status and its phrase ("401 Unauthorized", "‹id› Forbidden"): the API's answer
_STATUS = re.compile(r"(?:\b\d{3}|‹id›)\s+(?:unauthori[sz]ed|forbidden)\b", re.IGNORECASE)


def speaks_of_policy(text: str) -> bool:
    """Does a clause of ``text`` speak of a check, a permission or a role, and not of a
    tool's interface? Names are left out first: quoted names, an HTTP status's phrase, a
    word naming a header, a field or an argument where it does, a capitalised one wherever it
    stands ("send Authorization" beside "the Authorization header"), and an HTTP header's
    name in a text that names an interface item. A validation
    error's own words ("'phone' is not allowed", "over the limit") count only in a text naming
    no interface item."""
    found = [m.group(1) for m in _NAME_BEFORE.finditer(text) if not _INTERFACE.search(m.group(1))]
    names_interface = bool(found or _NAMED.search(text) or _INTERFACE.search(text))
    # ("the parameter 'phone'": the interface's own noun stays, it tells the clause apart)
    unnamed = _NAME_BEFORE.sub(lambda m: m.group(0) if _INTERFACE.search(m.group(1)) else " ", text)
    bare = _NAMED.sub(" ", _LABEL.sub(" ", _STATUS.sub(" ", unnamed)))
    # a name spelled as one (capitals: "Authorization", "X-Api-Key") is that name wherever it
    # stands; a plain word ("approval") only where it names the item
    spelled = sorted({name for name in found if not name.islower()})
    if spelled:
        bare = re.sub(r"\b(?:" + "|".join(map(re.escape, spelled)) + r")\b", " ", bare)
    if names_interface:  # "…: Authorization is no longer accepted" beside a header named
        bare = _HEADER_NAME.sub(" ", bare)
    for clause in _POLICY_CLAUSE.split(bare):
        if _INTERFACE.search(clause):
            continue
        if _POLICY.search(clause) or (not names_interface and _WEAK_POLICY.search(clause)):
            return True
    return False


def about_policy(lesson: str) -> bool:
    """Is a lesson about a policy, a permission or a role (``speaks_of_policy``), read for its
    substance: what its runs observed where it quotes them, not the judge's frame around it
    (a remedy for a refused call speaks of permission whatever the call was)."""
    return speaks_of_policy(_substance(lesson))


def states_reversal(text: str) -> bool:
    return bool(_marker_found().search(text))


#: a quotation marked as observed («…», digest.text.quoted): what the run said, as data
_QUOTED = re.compile(r"«([^»]{1,2000})»")


def _substance(text: str) -> str:
    """What a lesson reports of the world: its observed quotations when it has any (a lesson
    in the offline judge's own words quotes the error; its advice is a fixed template whose
    words, "instead of calling it again", state no reversal), else all of it."""
    quotes = _QUOTED.findall(text)
    return "\n".join(quotes) if quotes else text


#: lesson texts whose ``signals_change`` a process remembers, and their bytes
#: (``digest.bounded``): reconciliation asks it of one candidate beside each of its neighbours,
#: soon after each other. Keyed by a digest of the text (about 200 bytes an entry): in the
#: throughput stream (issue 27) 75% of asks hit with 0.125 MiB as with 2 MiB
CHANGE_KEPT, CHANGE_BYTES = 1024, 2**18


@memo(CHANGE_KEPT, CHANGE_BYTES, digest_keys=True)
def signals_change(text: str) -> bool:
    """Does a lesson's substance (its observed quotations, else its text) say that something
    was removed, replaced or inverted? Such a candidate may contradict a lesson of its subject:
    reconciliation asks the judge (``digest.reflect.reconcile.for_the_judge``)."""
    return states_reversal(_substance(text))


#: an answer that opens by saying yes, or no, in the languages the screen reads
_YES = re.compile(
    r"^\W*(?:yes|yeah|yep|sure|of course|sí|si|oui|ja|jawohl|sim|sì|да|tak|ano|evet|kyllä"
    r"|igen|はい|是的|是|네|예)(?=\W|$)"
    # Indonesian "Ya," (a Spanish "Ya no" is not a yes: only before a comma, stop or "!")
    r"|^\W*ya(?=\s*[,.!])",
    re.IGNORECASE,
)
_NO = re.compile(
    # "Unfortunately not", "Leider nein": a regret before the no is still a no
    r"^\W*(?:(?:unfortunately|sadly|i'?m afraid|afraid|leider|malheureusement|lamentablemente"
    r"|desafortunadamente|infelizmente|purtroppo|helaas|niestety)\W+)?"
    r"(?:no|nope|not|never|non|nein|nee|nei|não|nao|нет|nie|ne|hayır|nej|ei|emme|eivät|nem"
    r"|tidak|bukan|いいえ|不是|不"
    r"|아니요|아니오)(?=\W|$)",
    re.IGNORECASE,
)


def answer_polarity(text: str) -> int:
    """+1 for an answer that opens with a yes, -1 with a no, 0 for neither."""
    if _YES.match(text):
        return 1
    if _NO.match(text):
        return -1
    return 0


def answers_reversed(new: str, old: str) -> bool:
    """Does a new answer to a question reverse the old one: a yes where there was a no (or
    the other way round), or a statement that what the old answer says was removed, replaced
    or inverted?"""
    polarity = answer_polarity(new) * answer_polarity(old)
    if polarity < 0:
        return True
    return not extends(new, old) and reverses(new, old)


#: words that add to what was said ("…, and since March from Bergen too")
_ADDS = re.compile(
    r"\b(?:too|also|as well|in addition|additionally|auch|ebenfalls|también|además|aussi|"
    r"également|anche|inoltre|também|ook|också|også|myös)\b",
    re.IGNORECASE,
)


def extends(new: str, old: str) -> bool:
    """Does a new answer keep everything the old one said and add to it ("Yes, from Oslo" →
    "Yes, from Oslo, and since March from Bergen too")? Then it updates the old answer; a
    dated change in it ("since March") is what was added, not a reversal."""
    kept = _words(_substance(old))
    return bool(kept) and kept <= _words(_substance(new)) and bool(_ADDS.search(new))


def reverses(new: str, old: str) -> bool:
    """Does ``new`` state a reversal about something ``old`` speaks of (a requirement the old
    text asks for that the new says was removed, replaced or inverted)? Both are read for
    their substance: observed quotations where a lesson has them."""
    terms = reversal_terms(_substance(new))
    if not terms:
        return False
    said = _words(_substance(old))
    return any(_meets(term, said) for term in terms)


#: the letters a word must have to name the first part of a compound ("Text" in
#: "Textangaben", "Liefer" in "Lieferadresse")
_COMPOUND_HEAD = 4


def _meets(term: str, words: set[str]) -> bool:
    """Is ``term`` one of ``words``, or a compound one of them opens ("textangaben" of
    "text": German, Dutch and Nordic write a thing and its kind as one word)?"""
    if term in words:
        return True
    return any(
        len(word) >= _COMPOUND_HEAD and len(term) > len(word) and term.startswith(word)
        for word in words
    )


def reverses_interface(new: str, old: str) -> bool:
    """``reverses``, for lessons drawn from runs: only what a tool's own interface asks for
    (an argument, a field, an endpoint, a format) is superseded. A lesson about a policy, a
    permission or a role is never reversed by run text, and a reversal that speaks of one is a
    claim to hold, not a change to learn."""
    if speaks_of_policy(_substance(old)) or speaks_of_policy(_substance(new)):
        return False
    return reverses(new, old) and not names_apart(new, old)


#: a long flag a command line names ("--replicas"): an item of the tool's interface
_FLAG = re.compile(r"(?<![\w-])--([a-z][\w-]{0,40})", re.IGNORECASE)


def _names(text: str) -> set[str]:
    """The interface items ``text`` names as names: quoted ('purpose_code', "image") or spelled
    as a command line's long flag (--replicas)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return set(_NAMED.findall(folded)) | {m.group(1) for m in _FLAG.finditer(folded)}


def names_apart(new: str, old: str) -> bool:
    """Does a reversal name its items (a quoted field, a flag) while the old text names only
    others? "'purpose_code' is no longer optional for international transfers" reverses
    nothing of "'reference' is required for international transfers": the words they share are
    the situation both errors arise in, the items are two. A reversal that names no item by
    name ("units is not supported anymore") is read by its words (``reverses``); one that does,
    beside an old text naming none, is about it only when the old text says its name in plain
    words; a reversal that speaks of the old item in plain words ("free-text bodies" of 'body')
    is about it."""
    sentences = reversal_sentences(_substance(new))
    said = set().union(*map(_names, sentences))
    known = _names(_substance(old))
    if said and not known:
        # the old text names no item by name: it is about the reversal's item only when it
        # speaks of it in plain words ("ttl must be between 300 and 86400" is not about
        # "'priority' is now required for MX records")
        return not {_plain(name) for name in said} & _words(_substance(old))
    if not (said and known) or said & known:
        return False
    # the old item spoken of in plain words ("free-text bodies are not allowed; messages must
    # now reference an approved 'template_id'" beside "'body' is required") is reversed
    spoken = set().union(*map(_words, sentences))
    return not {_plain(name) for name in known} & spoken
