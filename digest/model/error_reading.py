"""Reading a tool's error for a lesson: what it states, in a few words for the title
(``precondition``), and which argument of the failing call it names (``named_argument``).

Both work on the error's text as data: what they return is quoted by the judge
(``digest.text.quoted``), or, for an argument, used only when the agent itself passed it.
"""

from __future__ import annotations

import re
from typing import Any

from digest import facts
from digest.fingerprint import call_values
from digest.masking import kept_figures, through_figures
from digest.model.error_families import (
    FAMILIES,
    MISSING_ARGUMENT,
    NOT_FOUND,
    TOOL_FAILURE,
    UNKNOWN_NAME,
    Family,
    family_of,
)
from digest.model.error_statement import readable
from digest.model.error_tool_families import TOOL_FAMILIES

#: an error's own label before its message: "Error:", "ValidationError:", "HTTP 409 -"
_LABEL = re.compile(
    r"^\s*(?:[\w.]*(?:error|exception|fault|err)\b|fehler|erreur|errore|erro|fout|fel|feil"
    r"|fejl|virhe|hata|błąd|chyba|ошибка)\s*[:\-–]\s*",
    re.I,
)
#: a status line before an error's message: "HTTP 400 Bad Request: ", "404 Not Found - ",
#: in the words an error opens with ("Erreur 400 : ", "Fehler 413: ")
_STATUS_HEAD = re.compile(
    r"(?:(?:HTTP(?:/[\d.]+)?|Error|Erreur|Fehler|Errore|Erro|Fout|Fel|Fejl|Feil|Błąd|Chyba"
    r"|Virhe|Hata)\s*)?[45]\d\d(?:\s+[A-Z][\w'-]*){0,4}\s*[:\-–]\s*"
)
#: the field an error's message is listed under, a name or a path ("amount/value: …")
_LISTED_UNDER = re.compile(r"^[A-Za-z_][\w./\[\]-]{0,60}:\s+(?=\S)")
#: where a clause of an error ends, and where a sentence does (a title is one sentence)
_CLAUSE = re.compile(r"[,;:—–]\s|\s[-–]\s|[.!?]\s")
_SENTENCE = re.compile(r"[.!?;]\s")


#: a request's id before the message an SDK prints ("Request ‹id›: Missing required param")
_REQUEST_HEAD = re.compile(r"^\s*request\s+‹id›\s*:\s*", re.I)
#: a field named before its own message ("currency: Missing required param: currency")
_FIELD_HEAD = re.compile(r"^\s*([\w.-]{2,40})\s*:\s*(?=\S)")


def message_core(error: str) -> str:
    """What an error says with every frame before it taken off (labels, a status line, a
    request's id, a field named again in its message), casefolded: one provider error read
    through its SDK ("InvalidRequestError: Request ‹id›: Missing required param: currency.")
    and as an HTTP body ("HTTP 400: currency: Missing required param: currency") says one
    thing."""
    line = " ".join(str(error).split())
    while True:
        before = line
        line = _LABEL.sub("", line, count=1)
        if _STATUS_HEAD.match(line):
            line = _STATUS_HEAD.sub("", line, count=1)
        line = _REQUEST_HEAD.sub("", line, count=1)
        field = _FIELD_HEAD.match(line)
        if field and re.search(rf"\b{re.escape(field.group(1))}\b", line[field.end() :], re.I):
            line = line[field.end() :]
        if line == before:
            return line.strip(" .…").casefold()


def same_message(a: str, b: str) -> bool:
    """Do two errors say one thing of three words or more under other frames
    (``message_core``)? Of what a lesson observed over several lines (a title's clause, then
    the error whole), the longest line is the error."""
    mine = message_core(max(a.splitlines() or [""], key=len))
    theirs = message_core(max(b.splitlines() or [""], key=len))
    if len(mine.split()) < 3:
        return False
    if mine == theirs:
        return True
    # one names the field its message is about, the other does not ("amount: Invalid integer"
    # as the HTTP body says it, "Invalid integer" as the SDK does): the same message; two
    # fields named ("amount: …", "quantity: …") stay two
    headless = [_FIELD_HEAD.sub("", m, count=1) for m in (mine, theirs)]
    return (headless[0] == theirs or headless[1] == mine) and len(headless[0].split()) >= 2


def without_label(error: str) -> str:
    """The error's message without its label ("Error: order not found" → "order not found")."""
    return _LABEL.sub("", " ".join(str(error).split()), count=1).strip(" .")


def precondition(error: str, family: Family, limit: int) -> str:
    """What the error states, as short as a title needs: the message without its label when
    it fits in ``limit`` characters, else the clause around what the family recognised, or
    that and the rest of its clause, or just that (two words at least); none of them across a
    sentence end; for an error of no family, its first clause or that clause's first words,
    marked cut with "…". When nothing fits, the whole message (the title is then the remedy alone;
    the caller quotes it, and ``digest.text.quoted`` bounds it)."""
    whole = line = without_label(error)
    status = _STATUS_HEAD.match(line)
    # the status says the class of error; the message after it says what failed
    found = None
    by_status = False
    if status is not None and (
        family.pattern is None or family.pattern.search(readable(line), status.end())
    ):
        line = line[status.end() :]
    if family.pattern is not None:
        found = family.pattern.search(readable(line))
        if status is not None and line is whole and found and found.end() <= status.end():
            # the family was read in the status alone ("409 Conflict: Arming refused — zone 4
            # is open"): the message says what failed, read as an error of no family's words
            found, by_status = None, True
    shorter = [line]
    if found is not None:
        starts = [m.end() for m in _CLAUSE.finditer(line, 0, found.start())]
        start = starts[-1] if starts else 0
        after = _CLAUSE.search(line, found.end())
        end = after.start() if after else len(line)
        rest = line[found.start() : end]
        shorter += [line[start:end], rest]
        # cut short only where the cut keeps the rule's figure: after it ("exceeds the limit
        # of 5"), else at a word ("at most 4 units of an…")
        shorter += [p for p in reversed(through_figures(rest)) if len(p) <= limit]
        shorter += [_cut(rest, limit)] if kept_figures(_cut(rest, limit)) else []
        shorter.append(line[found.start() : found.end()])
        # what the family recognised may span the long name it is about ('Property
        # "jezyk_ojczysty" does not exist'): its last words still say what failed
        shorter.append(" ".join(line[found.start() : found.end()].split()[-3:]))
    else:  # no family to find: its first clause, or that clause's first words
        if status is not None and line is whole:
            line = line[status.end() :]  # the status says only the class of error
        # past the field the message is listed under ("HTTP 422 Unprocessable Entity:
        # amount/value: Currency does not support decimals")
        line = _LISTED_UNDER.sub("", line, count=1)
        shorter.append(line)
        clause = line[: m.start()] if (m := _CLAUSE.search(line)) else line
        if by_status:
            # what the message says failed, past its status: its first sentence when it fits
            # ("Arming refused — zone 4 is open"), cut short when its first clause has four
            # words or fewer (a refusal, "mise en service refusée", says nothing of why)
            sentence = line[: m.start()] if (m := _SENTENCE.search(line)) else line
            shorter += [sentence] + ([_cut(sentence, limit)] if len(clause.split()) <= 4 else [])
        shorter += [clause, _cut(clause, limit)]
    # a clause that states the rule's figure ("expected 12 digits") says what to meet
    shorter[1:1] = [part for part in _CLAUSE.split(line) if kept_figures(part)]
    for phrase in shorter:
        phrase = phrase.strip(" .")
        if len(phrase) <= limit and len(phrase.split()) >= 2 and not _SENTENCE.search(phrase):
            return phrase
    return whole


#: what an error of no known family states as the condition of the call, and the remedy
#: that answers it (English, then the languages the families read)
_PRECONDITIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\b(?:requires?|required|needs?|must (?:have|be|first)|only (?:[\w-]+ ){0,3}(?:after|"
            r"when|if|once|for|with)|not (?:until|before)|before (?:you|it|the)|first)\b"
            r"|erfordert|benötigt|nur (?:nach|wenn)|requiere|necesita|solo (?:después|cuando|si)"
            r"|nécessite|exige|seulement (?:après|si)|requer|precisa|apenas (?:após|quando)"
            r"|richiede|solo dopo",
            re.I,
        ),
        "Meet the precondition first",
    ),
    (
        re.compile(
            r"\b(?:cannot|can't|can not|may not|must not|not (?:allowed|possible|permitted)"
            r"|only)\b|nicht möglich|no (?:se )?puede|ne peut pas|não pode|non (?:può|è possibile)",
            re.I,
        ),
        "Check the rule it states first",
    ),
)


#: the remedies that answer a stated condition without naming it (``remedy_of_condition``)
CONDITION_REMEDIES: tuple[str, ...] = tuple(remedy for _pattern, remedy in _PRECONDITIONS)


def remedy_of_condition(error: str) -> str | None:
    """For an error of no known family, the remedy that answers the condition it states
    ("requires a confirmed address" → meet the precondition first; "can only be sent after
    payment" → the same), else None (the generic remedy stands)."""
    line = without_label(error)
    return next((remedy for pattern, remedy in _PRECONDITIONS if pattern.search(line)), None)


def _cut(text: str, limit: int) -> str:
    """``text``'s first words up to ``limit`` characters, "…" marking the cut (or ``text``
    when it fits)."""
    if len(text) <= limit:
        return text
    head = text[: max(0, limit - 1)].rsplit(" ", 1)[0].rstrip(" ,;:")
    return f"{head}…"


#: an argument's name as an error names it: an identifier, quoted or after a word for one
_QUOTED_NAME = re.compile(r"[`'\"«]([A-Za-z_][A-Za-z0-9_.]{0,39})[`'\"»]")
_NAMED = re.compile(
    r"\b(?:field|parameter|param|argument|arg|property|attribute|key|column)s?\s*[:=]?\s*"
    r"([A-Za-z_][A-Za-z0-9_.]{0,39})",
    re.I,
)
#: a field an error lists its message under ("… for CreateTicket: priority: Input should be …",
#: "HTTP 400 Bad Request: assignee: User cannot be assigned")
_FIELD_LABEL = re.compile(r"(?:^|:\s)([A-Za-z_][A-Za-z0-9_.]{0,39}):\s")
#: a word that judges the name after it ("invalid reason", "missing sku"), and how many
#: words after it may be that name
_QUALIFIER = re.compile(
    r"(?:invalid|missing|unknown|unsupported|unrecogni[sz]ed|malformed|wrong|bad|incorrect"
    r"|required|empty)\b",
    re.I,
)
_AFTER = 2
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")
_WORDS = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]{1,39}\b")


def named_argument(error: str, args: Any, family: Family | None = None) -> str | None:
    """The argument of the failing call that the error names, or None.

    Only a name the agent itself passed counts (a top-level key of the call's arguments,
    like the tool's own name): a name that only the error spells is the error's text and
    stays inside its quotation. A quoted name, one after a word for one ("field 'amount'")
    or one an error lists its message under ("priority: Input should be …") counts wherever
    it stands; a bare word only when it says what failed: before what ``family`` recognised
    ("quantity exceeds the limit", not "… exceeds the carrier maximum"), the nearest one, or,
    with none there, one of the words after a word that judges it ("invalid reason");
    a name of several words ("weight_kg") when each of its words is in the error, one of
    them there ("package weight 38.5 kg exceeds …")."""
    if not isinstance(args, dict) or not args:
        return None
    keys = {
        str(k).casefold(): str(k)
        for k in args
        if _IDENTIFIER.fullmatch(str(k)) and str(k).count("_") <= 3
    }
    text = str(error)
    for pattern in (_QUOTED_NAME, _NAMED, _FIELD_LABEL):
        for named in pattern.finditer(text):
            if named.group(1).casefold() in keys:
                return keys[named.group(1).casefold()]
    words = readable(text)
    found = family.pattern.search(words) if family is not None and family.pattern else None
    before = words[: found.start()] if found is not None else words
    said = {w.casefold() for w in _WORDS.findall(words)}
    # each word before what failed, at its last place (the nearest to what failed wins)
    at = {m.group(0).casefold(): m.start() for m in _WORDS.finditer(before)}
    if (
        found is not None
        and not (at.keys() & keys.keys())
        and _QUALIFIER.match(words, found.start())
    ):
        # "invalid reason", "missing sku in line 2": the name follows the word that judges it
        after = _WORDS.findall(words, found.start())[1 : 1 + _AFTER]
        at = {w.casefold(): -n for n, w in enumerate(after)}
    best: tuple[int, str] | None = None
    for folded, key in keys.items():
        parts = [part for part in folded.split("_") if len(part) >= 2]
        if folded in at and ("_" in folded or len(folded) >= 4):
            place = at[folded]
        elif len(parts) >= 2 and set(parts) <= said and any(p in at for p in parts):
            place = max(at[p] for p in parts if p in at)
        else:
            continue
        if best is None or place > best[0]:
            best = (place, key)
    return None if best is None else best[1]


#: a name an error quotes ('revenue_usd', "W-1182")
_QUOTED_ANY = re.compile(r"""['"`‘“]([^'"`’”\n]{1,80})['"`’”]""")


def passed_family(family: Family, said: str, args: Any) -> Family:
    """A missing argument's family read against what the call passed: a name the error says
    is missing that the call itself passed is not missing from the call. Passed as a whole
    value (an id: ``KeyError: 'W-1182'`` for ``order_id="W-1182"``), the record is not found;
    passed as a word of a longer value (a column in the code ``df['revenue_usd'].sum()``),
    the name is not one the data has."""
    if family is not MISSING_ARGUMENT or not isinstance(args, dict):
        return family
    passed = call_values(args)
    for quoted in _QUOTED_ANY.findall(said):
        name = quoted.casefold()
        if name in passed:
            return NOT_FOUND
        if any(len(v) > len(name) and _word_in(name, v) for v in passed):
            return UNKNOWN_NAME
    return family


def _word_in(name: str, value: str) -> bool:
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", value) is not None


_TOOL_FAMILY_NAMES = frozenset(f.name for f in TOOL_FAMILIES)


def family_in(said: str, error: str) -> Family:
    """The family of what an error says (``said``, its statement), read further in the whole
    ``error`` when that says no family or only that something was refused: a precondition
    stated on another line ("Please commit your changes or stash them before you switch
    branches"), a state of the tool's surroundings its trailer gives (a shell's exit status
    126: found, not executable)."""
    family = family_of(said)
    if family is not TOOL_FAILURE and family.name != "permission":
        return family
    whole = family_of(" ".join(str(error).split()))
    if family is TOOL_FAILURE or whole.name in _TOOL_FAMILY_NAMES:
        return whole
    return family


def state_terms(error: str, family: str) -> frozenset[str] | None:
    """What the error says of the failed state, as ``digest.facts`` terms (stems, one term per
    concept: "out of stock" and "insufficient inventory" both say ``stock``): the words of
    every phrasing the family ``family`` recognised in it, status codes left out; None when
    it recognises none."""
    found = next((f for f in FAMILIES if f.name == family), None)
    if found is None or found.pattern is None:
        return None
    # in the message, or in its label when only that says it ("401: …")
    said = [m.group(0) for m in found.pattern.finditer(readable(without_label(error)))]
    said = said or [m.group(0) for m in found.pattern.finditer(readable(error))]
    if not said:
        return None
    # a status code ("401") names the class of error, not what the state is
    return frozenset(t for t in facts.terms(" ".join(said)) if not t.isdigit())
