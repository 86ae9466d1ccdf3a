"""Frames: where two sentences say one thing each in one shape (issue 24, DESIGN §8a).

Two errors or facts of one kind often share a sentence and differ in one place: "Password must
contain at least one digit" / "…one uppercase letter", "Field 'postcode' is required" / "Field
'state' is required", "dog" / "cat". An embedding reads such pairs as alike; they are two
things. Pure functions on text, read by ``digest.identity.meaning`` (whether two texts read as
one thing) and by the offline judge (whether two errors of one family state one failed state).
"""

from __future__ import annotations

import re
import sys

from digest import facts
from digest.bounded import memo
from digest.fingerprint import passed_back
from digest.masking import HTTP_REASONS

_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)

#: a name an error quotes or spells in capitals: what it is about, in any language
NAMED_PATTERN = re.compile(r"""['"‘“]([\w.-]{1,40})['"’”]|\b([A-Z][A-Z0-9_]{1,9})\b""")
#: a field an error labels ("…for CreateTicket: priority: Input should be …", "amount:
#: must be positive"): a lowercase identifier before a colon, opening a line or after
#: another label's colon (not a word of prose: "Payment rejected: card expired")
FIELD_PATTERN = re.compile(r"(?:^|(?<=: ))([a-z][a-z0-9]*(?:_[a-z0-9]+)*):\s", re.M)


#: words that only frame a sentence (the gloss leaves the other languages' out)
FRAME = frozenset(
    """a an the and or but of to in on at by for from with as into than then that this these
    those there it its is are was were be been being am has have had do does did will would
    shall should can could may might must i you he she we they me him her us them my your his
    our their which who whom whose what when where while if so such very just also no not
    never none cannot because since although though unless yet still already only even
    any all each every some both either neither own here now""".split()  # noqa: SIM905
)


def _stem(word: str) -> str:
    return next(iter(sorted(facts.terms(word))), word)


#: texts a process remembers the stemmed words of, and their bytes (``digest.bounded``): the
#: judge's evidence compares a candidate with each neighbour, and the same lessons again for
#: every event on their subject
READINGS_KEPT, READINGS_BYTES = 1024, 1 * 2**20


@memo(READINGS_KEPT, READINGS_BYTES, digest_keys=True)
def _read(text: str) -> tuple[frozenset[str], tuple[tuple[str, ...], ...]]:
    """What ``swapped`` reads of a text: its stemmed words but the frame's, and each line's
    stemmed words in order."""
    # the stems interned: the same words recur across the texts it remembers
    terms = frozenset(
        sys.intern(_stem(w)) for w in _WORD.findall(text.casefold()) if w not in FRAME
    )
    return terms, tuple(tuple(sys.intern(_stem(w)) for w in line) for line in _lines(text))


def swapped(text_a: str, text_b: str) -> bool:
    """Does each text say something the other does not in one place of a frame they share:
    exactly one word each, wherever it stands ("amount is required", "currency is required";
    "dog", "cat"), or a short phrase each in the same place of one sentence ("…must contain
    at least one digit" / "…one uppercase letter"; "…blocked: vaccination record missing" /
    "…birth certificate missing")? Two things of one kind, which an embedding reads as alike.
    Read in every word but the frame's, stemmed as ``digest.facts`` stems (generic words
    kept: they are the frame)."""
    (mine, lines_a), (theirs, lines_b) = _read(text_a), _read(text_b)
    if len(mine - theirs) == len(theirs - mine) == 1 and bool(mine & theirs):
        return True
    return any(_slot_swapped(a, b) or _words_swapped(a, b) for a in lines_a for b in lines_b)


#: the most places two sentences of one frame may each put a word of their own in
SWAPPED_WORDS = 2


def _words_swapped(sa: tuple[str, ...], sb: tuple[str, ...]) -> bool:
    """One sentence each, word for word the same but in up to ``SWAPPED_WORDS`` places, where
    each puts a word the other sentence lacks: "Hoses may only be used before …" / "Bonfires
    may only be lit before …"; "the operator has no valid crane certificate" / "the site has
    no valid ground-bearing certificate". The frame (the places they share) is most of each."""
    if len(sa) != len(sb) or len(sa) < 2 * SWAPPED_WORDS + 1:
        return False
    places = [i for i, (a, b) in enumerate(zip(sa, sb, strict=True)) if a != b]
    if not places or len(places) > SWAPPED_WORDS:
        return False
    return all(
        sa[i] not in sb and sb[i] not in sa and sa[i] not in FRAME and sb[i] not in FRAME
        for i in places
    )


#: the longest phrase ``_slot_swapped`` reads as one slot of a frame, in words
SLOT_WORDS = 5


def _lines(text: str) -> list[list[str]]:
    return [words for line in text.splitlines() if (words := _WORD.findall(line.casefold()))]


def _slot_swapped(sa: tuple[str, ...], sb: tuple[str, ...]) -> bool:
    """One sentence each, the same words before and after one place where each says its own
    phrase (at most ``SLOT_WORDS`` words): a frame around two things. The frame (what both
    share around the place) is at least half of the longer sentence, and each phrase holds a
    word the other sentence lacks: "Seat ‹id› is already taken" against "…is occupied" is a
    synonym swapped, read apart too (a merge loses a fact, a split only a count). Each is a
    line's stemmed words."""
    head = 0
    while head < min(len(sa), len(sb)) and sa[head] == sb[head]:
        head += 1
    tail = 0
    while tail < min(len(sa), len(sb)) - head and sa[-1 - tail] == sb[-1 - tail]:
        tail += 1
    mid_a, mid_b = sa[head : len(sa) - tail], sb[head : len(sb) - tail]
    if not mid_a or not mid_b or max(len(mid_a), len(mid_b)) > SLOT_WORDS:
        return False
    if 2 * (head + tail) < max(len(sa), len(sb)):
        return False
    own_a = {w for w in mid_a if w not in sb and w not in FRAME}
    own_b = {w for w in mid_b if w not in sa and w not in FRAME}
    return bool(own_a) and bool(own_b)


#: an error code a service gives in its own field: a word in CamelCase or capitals with
#: underscores, in parentheses or after "code" ("An error occurred (NoSuchBucket) when
#: calling…", "(ResourceNotFound)", "code: CARD_DECLINED"): which error it is, whatever the
#: message around it says (one service's codes of two errors share the rest of the frame)
ERROR_CODE = re.compile(
    r"\((?:[A-Z][a-z0-9]+){2,}[A-Za-z0-9]*\)|\((?:[A-Z][A-Z0-9]*_)+[A-Z0-9]+\)"
    r"|\b[Cc]ode[\"']?\s*[:=]\s*[\"']?(?:(?:[A-Z][a-z0-9]+){2,}|(?:[A-Z][A-Z0-9]*_)+[A-Z0-9]+)\b"
)
_CODE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]+$")


#: an error code that is the whole message after a label or a status ("HTTP 200:
#: channel_not_found", "error: not_in_channel"): lower case words joined by underscores
_CODE_ALONE = re.compile(
    r"(?:(?<=: )|^)([a-z][a-z0-9]*(?:_[a-z0-9]+){1,5})(?=[ \t]*(?:$|[;,»]))", re.M
)


def error_codes(text: str) -> frozenset[str]:
    """The error codes ``text`` gives (``ERROR_CODE``, ``_CODE_ALONE``, ``_CODE_LABEL``),
    casefolded."""
    found = set()
    for match in ERROR_CODE.finditer(text):
        code = _CODE_NAME.search(match.group(0).rstrip(")"))
        if code is not None:
            found.add(code.group(0).casefold())
    found.update(_CODE_ALONE.findall(text))
    found.update(
        label.casefold()
        for label in _CODE_LABEL.findall(text)
        if sum(c.isupper() for c in label) >= 2
    )
    return frozenset(found)


#: an exception's name or a service's error code labelling a line's message
#: ("SMTPSenderRefused: (553, …)", "MessageRejected: Address blacklisted", "KeyError: 'x'"):
#: CamelCase, two capitals at least (not a word of prose: "Payment: declined")
_CODE_LABEL = re.compile(r"^[ \t]*([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*):\s", re.M)


#: an enum value an error quotes ("reason: AML_REVIEW"): capitals joined by underscores
_ENUM = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")


def enums_masked(text: str) -> str:
    """``text`` with each enum value it quotes ("reason: AML_REVIEW") masked as an id, as a
    template masks it: the instance's state, not the error's words."""
    return _ENUM.sub("‹id›", text)


#: the units a size is counted in, spelled in capitals ("26,112 KB", "25 MB"): a measure, not
#: a name (one limit in two units names no two things)
UNITS = frozenset(["kb", "mb", "gb", "tb", "pb", "kib", "mib", "gib", "tib"])


def named(text: str) -> frozenset[str]:
    """The names ``text`` quotes, spells in capitals (not a unit: ``UNITS``), labels as a field
    or gives as an error code (``'iccid'``, ``PUK``, ``TTL``, ``priority:``,
    ``(NoSuchBucket)``)."""
    found = {
        (quoted or capitals).casefold()
        for quoted, capitals in NAMED_PATTERN.findall(text)
        if quoted or capitals.casefold() not in UNITS
    }
    return frozenset(found | set(FIELD_PATTERN.findall(text)) | error_codes(text))


#: a short quoted name or value ('main', "jdoe")
_QUOTED = re.compile(r"""['"‘“]([\w.-]{1,40})['"’”]""")
#: a value a call passed, as a lesson quotes the call's arguments (``{"ref": "main"}``, or a
#: longer text such as code: ``{"code": "import polars as pl"}``)
_PASSED = re.compile(r'"[\w.-]{1,40}"\s*:\s*"((?:[^"\\\n]|\\.){1,2000})"')


#: a list argument's items as a lesson quotes them (brackets become parentheses in «…»)
_PASSED_LIST = re.compile(r'"[\w.-]{1,40}"\s*:\s*[(\[]([^()\[\]{}]{1,2000})[)\]]')
_LIST_ITEM = re.compile(r'"((?:[^"\\\n]|\\.){1,200})"')


#: an option's value in a command line (``--location northeurope``, ``--size=Standard_D8s``)
_OPTION_VALUE = re.compile(r"(?<!\S)--[a-z][\w-]{0,40}[ =]((?!-)[^\s\"]{1,200})")


#: a lesson's first quotation («…»): a mistake quotes the call before what it answered
_FIRST_QUOTE = re.compile(r"«([^«»]*)»")


#: a figure a call passed (``{"mem_gb": 64}``, ``{"temp_c": 1300}``)
_PASSED_FIGURE = re.compile(r'"[\w.-]{1,40}"\s*:\s*(-?\d+(?:\.\d+)?)(?=\s*[,}\]])')


def passed_values(*mistakes: str) -> frozenset[str]:
    """The values of the arguments each mistake quotes first, as a JSON object ("Called `x`
    with «{"assignee": "jdoe"}» and it failed: «…»"): what a caller passed, which an error
    names back ("User 'jdoe' cannot be assigned"). Only that quotation counts: an error's
    own JSON body says what failed, not what was passed."""
    found: set[str] = set()
    for mistake in mistakes:
        first = _FIRST_QUOTE.search(mistake)
        if first is not None and first.group(1).lstrip().startswith("{"):
            values = [v.casefold() for v in _PASSED.findall(first.group(1))]
            found.update(values)
            # a command line passed as one string: the value of each of its options
            # (``"command": "vm create --location northeurope"`` passed "northeurope")
            found.update(o.strip("'") for v in values for o in _OPTION_VALUE.findall(v))
            # the strings of a list argument (``"labels": ["bug", "triage"]``, quoted with
            # parentheses for brackets)
            for items in _PASSED_LIST.findall(first.group(1)):
                found.update(v.casefold() for v in _LIST_ITEM.findall(items))
    return frozenset(found)


def passed_figures(*mistakes: str) -> frozenset[str]:
    """The figures each mistake's call passed (its first quotation, a JSON object): the
    instance's own ("requested 64 GB" for ``{"mem_gb": 64}``), which an error names back
    beside the figure that is its rule ("the node limit of 48 GB")."""
    found: set[str] = set()
    for mistake in mistakes:
        first = _FIRST_QUOTE.search(mistake)
        if first is not None and first.group(1).lstrip().startswith("{"):
            found.update(_PASSED_FIGURE.findall(first.group(1)))
    return frozenset(found)


#: a figure standing alone (not a piece of an id, a decimal or a longer figure)
_FIGURE = re.compile(r"(?<![\w.,‹])\d+(?:[.,]\d+)?(?![\w‹]|[.,]\d)")


def figures_masked(text: str, passed: frozenset[str]) -> str:
    """``text`` with each figure a call ``passed`` masked as an id ("requested 64 GB exceeds
    the limit of 48 GB" → "requested ‹id› GB exceeds the limit of 48 GB")."""
    if not passed:
        return text
    return _FIGURE.sub(lambda m: "‹id›" if m.group(0) in passed else m.group(0), text)


#: a head (at most ``HEAD_WORDS`` words, no sentence ending before it) and what its colon
#: opens: "Booking refused: <reason>", "Job ‹id› cannot be scheduled: <reason>"
_HEAD_REASON = re.compile(r"^([^:.;!?\n]{3,100}?)\s*:\s+(\S[^\n]*)$")
HEAD_WORDS = 10


def head_and_reason(line: str) -> tuple[str, str] | None:
    """A one-sentence head of at most ``HEAD_WORDS`` words and the reason its colon opens
    ("Booking refused: the wagon is locked for inspection"), else None."""
    found = _HEAD_REASON.match(line.strip())
    if found is None or len(found.group(1).split()) > HEAD_WORDS:
        return None
    return found.group(1), found.group(2)


def _head_reason(line: str) -> tuple[frozenset[str], str] | None:
    if (found := head_and_reason(line)) is None:
        return None
    head = frozenset(_stem(w) for w in _WORD.findall(found[0].casefold()) if w not in FRAME)
    return (head, found[1]) if head else None


def shared_frame(text_a: str, text_b: str) -> tuple[str, str] | None:
    """When a line of each text opens with the same head before a colon ("Plan de vuelo ‹id›
    rechazado: …", "Job ‹id› cannot be scheduled: …"), the reasons each gives after it (the
    longest such pair); else None. The frame is shared: what the reasons say decides whether
    the two are one error (one reason reworded) or two (two reasons)."""
    found: tuple[str, str] | None = None
    for line_a in text_a.splitlines():
        if (mine := _head_reason(line_a)) is None:
            continue
        for line_b in text_b.splitlines():
            theirs = _head_reason(line_b)
            if theirs is None or theirs[0] != mine[0]:
                continue
            if found is None or len(mine[1]) + len(theirs[1]) > sum(map(len, found)):
                found = (mine[1], theirs[1])
    return found


#: a name an error writes in square brackets ("failed to parse field [eta] of type [date]",
#: Elasticsearch's; "index [orders]"), or in the round ones a lesson's quotation writes them
#: with: letters and underscores, no digit (an id's brackets: "[ZND-448131]", "[1:61]")
_BRACKETED = re.compile(r"[\[(]([^\W\d][^\W\d]*(?:[._-][^\W\d]+)*)[\])]")


def bracketed_apart(a: str, b: str) -> bool:
    """Does each text name in square brackets what the other does not ("field [gewicht_kg] of
    type [float]" and "field [eta] of type [date]": one frame, two fields)? Two errors, which
    read nearly word for word alike."""
    mine = {m.casefold() for m in _BRACKETED.findall(a)}
    theirs = {m.casefold() for m in _BRACKETED.findall(b)}
    return bool(mine - theirs) and bool(theirs - mine)


def quoted_apart(a: str, b: str, passed: frozenset[str] = frozenset()) -> bool:
    """Does each text quote a name the other does not ("Field 'postcode' is required" and
    "Field 'state' is required", whose error templates mask the quoted names alike)? A value
    a call passed (``passed``: 'jdoe', 'mpatel') names the instance, not the error; so does
    a code in capitals ("plan P-BASIC"), which templates mask as an id and which is not
    read here."""
    mine = {
        _within(n, passed) for q in _QUOTED.findall(a) if not passed_back(n := q.casefold(), passed)
    }
    theirs = {
        _within(n, passed) for q in _QUOTED.findall(b) if not passed_back(n := q.casefold(), passed)
    }
    return bool(mine - theirs) and bool(theirs - mine)


def _within(quoted: str, passed: frozenset[str]) -> str:
    """A quotation with the values a call passed masked inside it ("Following SKUs have failed
    for Capacity Restrictions: Standard_NC6s_v3" for ``--size Standard_NC6s_v3``): the rest
    is what names the error."""
    for value in sorted(passed, key=len, reverse=True):
        if 3 <= len(value) < len(quoted) and value in quoted:
            quoted = re.sub(rf"(?<![\w.-]){re.escape(value)}(?![\w.-])", "‹id›", quoted)
    return quoted


def masked(text: str, passed: frozenset[str]) -> str:
    """``text`` with each quoted value a call ``passed`` masked as an id ("branch 'main' is
    protected" → "branch ‹id› is protected")."""
    if not passed:
        return text

    def mask(match: re.Match[str]) -> str:
        return "‹id›" if match.group(1).casefold() in passed else match.group(0)

    return _QUOTED.sub(mask, text)


#: a code an error names unquoted: capitals with digits or dashes ("PA12", "PC", "B-2")
_CODE = re.compile(r"(?<![\w‹-])([A-Z][A-Z0-9-]{1,19})(?![\w›-])")


def codes_masked(text: str, passed: frozenset[str]) -> str:
    """``text`` with each code a call ``passed`` named back unquoted masked as an id
    ("printer cannot print material PA12" for ``{"material": "PA12"}``), or as a word of a
    longer value ("cannot execute UPDATE in a read-only transaction" for the statement
    ``UPDATE orders SET …``: ``digest.fingerprint.passed_back``)."""
    if not passed:
        return text
    return _CODE.sub(
        lambda m: "‹id›" if passed_back(m.group(1).casefold(), passed) else m.group(0), text
    )


#: an HTTP status a line opens with before what the service says ("413 Payload Too Large: …",
#: "Forbidden - …", "HTTP/1.1 409 Conflict: …", "403: …")
_STATUS_OPENING = re.compile(
    rf"^(?:HTTP(?:/[\d.]+)?\s*)?(?:[1-5]\d\d(?:\s+(?i:{HTTP_REASONS}))?|(?i:{HTTP_REASONS}))"
    r"\s*[:\-–]\s+",
    re.M,
)
#: the words a line must keep after its status for the status to be only its frame
_SAID_AFTER_STATUS = 3


def status_dropped(text: str) -> str:
    """``text`` with the HTTP status each line opens with taken off, where the line says at
    least ``_SAID_AFTER_STATUS`` words after it: the class of the failure, which one service's
    two wordings of one error give or leave out ("Forbidden - cannot trigger pipelines on
    protected branch ‹id›", "403: pipeline triggers are disabled for protected branch ‹id›").
    Kept where it is most of what the line says ("404 Not Found: order ‹id›")."""

    def drop(match: re.Match[str]) -> str:
        rest = match.string[match.end() :].split("\n", 1)[0]
        return "" if len(_WORD.findall(rest)) >= _SAID_AFTER_STATUS else match.group(0)

    return _STATUS_OPENING.sub(drop, text)


def as_compared(new: str, old: str, *mistakes: str) -> tuple[str, str]:
    """What two failures observed, as they are compared: the values and figures each
    mistake's call passed masked as ids (they name the instance), the HTTP status a line opens
    with left out (``status_dropped``), and, when one frame holds both ("Booking refused:
    <reason>"), only the reasons it gives (they decide)."""
    passed, numbers = passed_values(*mistakes), passed_figures(*mistakes)
    mine, theirs = (
        status_dropped(figures_masked(codes_masked(masked(t, passed), passed), numbers))
        for t in (new, old)
    )
    return shared_frame(mine, theirs) or (mine, theirs)
