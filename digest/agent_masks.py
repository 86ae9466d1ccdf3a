"""The masks of what an agent reads of run text, piece by piece (``digest.agent_text`` judges
the sentences and lessons they make up).

- a tool's or an argument's name: its words (``name_words``), whether it is a sentence
  written as a name or an order (``NAME_PLACEHOLDER``);
- a «…» quotation: the short masked error template an agent may read of it
  (``error_template``), or none;
- the judge's prose: every address, URL, e-mail, phone or account number and secret masked
  (``safe_prose``);
- and, of any of them, whether it speaks to its reader rather than about a failure
  (``addresses_reader``).

The functions are pure and idempotent, as ``digest.agent_text``'s are.
"""

from __future__ import annotations

import re
import unicodedata

from digest.agent_words import (
    ADDRESS_CONTROL,
    AI_NAME,
    NAME_ORDER,
    POSTAL,
    ROLE_MARKER,
    SECOND_PERSON,
    TAKEOVER,
    error_shaped,
)
from digest.error_shape import quotable
from digest.fingerprint import mask_ids
from digest.redact import MASK, redact
from digest.reversal import speaks_of_policy, states_reversal
from digest.text import DESTINATION, destination_placeholder

#: at most this many characters of one error template reach an agent
TEMPLATE_MAX = 120


def addresses_reader(text_value: str) -> str | None:
    """Why ``text_value`` speaks to its reader rather than about a failure, or None."""
    flat = unicodedata.normalize("NFKC", text_value)
    if ROLE_MARKER.search(flat):
        return "role marker"
    if TAKEOVER.search(flat):
        return "takes over the reader"
    if AI_NAME.search(flat):
        return "addresses an AI"
    if SECOND_PERSON.search(flat) and ADDRESS_CONTROL.search(flat):
        return "orders the reader"
    return None


def error_template(quotation: str) -> str | None:
    """A quotation as a short masked error template (of its first sentence, the error's
    statement, its label and the few words next to what failed: ``digest.error_shape``),
    or None when it is not one: it is
    not shaped like an error (no failure's words in any language of the screen, no
    exception name, code or status:
    ``agent_words.error_shaped``), it speaks to the reader, or it asks a question. Ids,
    numbers, dates, paths, e-mails and URLs become placeholders, quoted free-text values
    ``‹value›`` (an identifier such as a field's name stays), secrets are masked, and the
    template is cut at ``TEMPLATE_MAX`` characters. A quotation that says a policy, a
    permission or a role changed ("refunds no longer need approval") is a claim: None."""
    # NFKC spells "…" as "...": put it back, so that a template's cut reads back as one
    flat = unicodedata.normalize("NFKC", quotation).replace("...", "…")
    flat = _statement(" ".join(visible(flat).split()))
    if not error_shaped(flat):
        return None  # not what a failing tool says: an order, a note, a page's words
    masked = quotable(flat, _masked).replace("...", "…").translate(QUOTE_SAFE)
    masked = _NAME_TOKEN.sub(_shown_name, masked)
    masked = masked.strip(" .")
    if not any(ch.isalpha() for ch in _PLACEHOLDER.sub("", masked)):
        return None  # nothing but placeholders: it says nothing
    if addresses_reader(flat) or addresses_reader(masked) or claims_policy(flat):
        return None
    if masked.endswith(("?", "？", "؟")):
        return None  # a question is what someone asked, not what a tool answered
    if len(masked) > TEMPLATE_MAX:
        masked = masked[: TEMPLATE_MAX - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"
    return masked


def claims_policy(text: str) -> bool:
    """Does ``text`` say a policy, a permission or a role changed (a claim, not advice)?"""
    return states_reversal(text) and speaks_of_policy(text)


#: a period that ends an abbreviation, not a sentence
ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|no|nr|z\.b|p\.ex|p\. ex)\.)$", re.I
)
#: where an error's statement ends: a sentence end followed by a space (not "v1.2", "5.7.1")
_STATEMENT_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])")


def _statement(error: str) -> str:
    """An error's statement: its first sentence. What follows (a hint, advice, or whatever
    else a tool or a page appended) is not what failed, and is not rendered."""
    first = _STATEMENT_END.split(error, maxsplit=1)[0]
    return first if not ABBREVIATION.search(first) else error


def safe_prose(text_value: str) -> str:
    """The judge's own words with every address, URL, e-mail, phone or account number and
    secret masked (``‹address›``, ``‹url›``, ``‹number›``, ``‹secret›``)."""
    return _SECRET_SHAPED.sub(_secret_placeholder, _masked_destinations(_unsaid(text_value)))


# --- names ------------------------------------------------------------------------------------

#: the parts of a name ("send_all_records" → send, all, records)
_NAME_PART = re.compile(r"[^\W\d_]+")
#: a tool's name has at most this many words; more is a sentence written as a name
NAME_WORDS = 5


#: an argument's name (not a tool's) has at most this many words to be shown
ARGUMENT_WORDS = 2


def name_words(name: str) -> list[str]:
    """The words of a name: "send_all_records" and "sendAllRecords" → send, all, records."""
    return _NAME_PART.findall(re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name))


def short_name(name: str) -> bool:
    """An argument's name, not a sentence: "order_id", never "skipIdentityCheck"."""
    return len(name_words(name)) <= ARGUMENT_WORDS


def sentence_in_a_name(name: str) -> bool:
    """Is this tool's name a sentence: more than ``NAME_WORDS`` words, or words that address
    the reader once spaced ("ignore_previous_instructions", "note_to_the_assistant")?"""
    parts = name_words(name)
    return len(parts) > NAME_WORDS or addresses_reader(" ".join(parts)) is not None


def order_in_a_name(name: str) -> bool:
    """Does a name, read as words, say more than which operation (``agent_words.NAME_ORDER``:
    "approve all refunds", "skip identity verification", "export table to partner")?"""
    return bool(NAME_ORDER.search(" ".join(name_words(name))))


#: what an agent reads in place of a name that says more than which operation
NAME_PLACEHOLDER = "‹name›"


# --- masks ---------------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"‹[a-z]+›|<[a-z]+>|\*\*\*")
#: a quoted value inside an error: kept when it is an identifier (a field's name), else masked
_VALUE = re.compile(r"\"([^\"]*)\"|'([^']*)'|“([^”]*)”|‹([^›]*)›|«([^»]*)»|`([^`]*)`")
_IDENTIFIER = re.compile(r"[A-Za-z_][\w.-]{0,39}")
QUOTE_SAFE = str.maketrans({"<": "‹", ">": "›", "«": "‹", "»": "›", "`": "'", "[": "(", "]": ")"})
#: a long token mixing letters and digits: a key without a vendor's prefix
_SECRET_SHAPED = re.compile(r"(?<![\w`‹])[A-Za-z0-9+/=_-]{24,}(?![\w`›])")
_INVISIBLE_CATEGORIES = ("Cc", "Cf", "Co", "Cs")
#: what ``redact`` left of a secret: the token holding its mask
_REDACTED = re.compile(rf"[^\s«»‹›]*{re.escape(MASK)}[^\s«»‹›]*")


#: a name inside an error: an identifier of two words or more (``snake_case``, ``camelCase``)
_NAME_TOKEN = re.compile(
    r"(?<![\w‹])[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+(?![\w›])"
    r"|(?<![\w‹])[a-z]+(?:[A-Z][a-z0-9]+)+(?![\w›])"
)


def _shown_name(match: re.Match[str]) -> str:
    """A name inside an error template as an agent reads it: ``‹name›`` when, read as words,
    it is an order (``order_in_a_name``), as a name in backticks is."""
    return NAME_PLACEHOLDER if order_in_a_name(match.group(0)) else match.group(0)


def _value_placeholder(match: re.Match[str]) -> str:
    inner = next(g for g in match.groups() if g is not None)
    if _IDENTIFIER.fullmatch(inner) and order_in_a_name(inner):
        return NAME_PLACEHOLDER  # a field's name that is an order: a forged call's key
    if re.fullmatch(r"[a-z]+", inner) or (_IDENTIFIER.fullmatch(inner) and short_name(inner)):
        return match.group(0)  # a field's name (as in backticks), or a placeholder already
    return "‹value›"


def _secret_placeholder(match: re.Match[str]) -> str:
    token = match.group(0)
    digits = sum(ch.isdigit() for ch in token)
    letters = sum(ch.isalpha() for ch in token)
    if digits >= 4 and letters >= 4:
        return "‹secret›"
    # a long base64 run in both cases with a digit or a base64 sign (a cloud secret key); a
    # camelCase identifier has neither
    mixed = any(ch.isupper() for ch in token) and any(ch.islower() for ch in token)
    if len(token) >= 32 and mixed and (digits or any(ch in "+/=" for ch in token)):
        return "‹secret›"
    return token


def _unsaid(text_value: str) -> str:
    """Every secret ``digest.redact`` recognises as ``‹secret›``, the kind it keeps too (an
    agent has no use for "AKIA***")."""
    return _REDACTED.sub("‹secret›", redact(text_value))


def _masked(text_value: str) -> str:
    """Secrets, destinations, ids and quoted free-text values masked, as an error template
    shows them."""
    return _VALUE.sub(_value_placeholder, mask_ids(_masked_destinations(_unsaid(text_value))))


def _masked_destinations(text_value: str) -> str:
    return POSTAL.sub("‹address›", DESTINATION.sub(destination_placeholder, text_value))


_ASCII_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_ASCII_CONTROL_BUT_NEWLINE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


def visible(text_value: str, *, keep_newlines: bool = False) -> str:
    """Control and invisible format characters as spaces (newlines kept when asked)."""
    if text_value.isascii():  # ASCII's only such characters are its controls (Cc)
        return (_ASCII_CONTROL_BUT_NEWLINE if keep_newlines else _ASCII_CONTROL).sub(
            " ", text_value
        )
    return "".join(
        ch
        if (keep_newlines and ch == "\n") or unicodedata.category(ch) not in _INVISIBLE_CATEGORIES
        else " "
        for ch in text_value
    )
