"""The injection screen (DESIGN §8, issues 12 and 25): a tripwire, not a wall. What keeps
attacker text from an agent is structural (an untrusted lesson waits for independent
corroboration; run text reaches an agent only as masked, quoted observations); the screen
quarantines what plainly tries to instruct the agent, and says why.

It judges what a text would make the agent DO, not which topics it mentions: a tool error that
quotes an address, a URL, a shell command, "system" or "ignore" is data, and so is an API
change (a parameter removed, renamed, now required, a header deprecated in favour of
another). Each view of the text (``digest.reflect.views``: look-alikes folded, invisible
characters dropped, de-spaced, de-leeted, decoded from base64/base32/hex/binary/Morse/
percent/entities/escapes/rot13/reversal) goes through the structural checks of
``digest.reflect.tripwire`` (reader-addressed sentences, role and channel markers, carrying
data, secrets or money out, policy claims aimed at the agent). Three entry points:

- ``injection_reason(text)``: the checks on every view of one text;
- ``event_reason(payload)``: every field of a run an attacker can write (task, error, attempt
  summary, each tool's name, error, output and argument strings), standing orders ("from now
  on you…") and tools named that the run never called included for all but the task, which is
  the user's own request;
- ``lesson_reason(candidate, tools)``: a lesson's text, plus what an untrusted lesson may not do
  in its own words (outside «…» quotations of observed data): name an address or URL to send
  to, or a tool the failing run never called.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from digest.bounded import memo
from digest.lessons.store import Candidate
from digest.pattern_start import built_once, for_existence
from digest.reflect import words
from digest.reflect.recipients import recipients_masked
from digest.reflect.tripwire import about_interface, check, plain, word_class
from digest.reflect.views import labelled_views
from digest.text import DESTINATION, is_tool_name, without_quotes

#: views that only exist to expose hidden English (reversed, rot13, de-spaced): read only when
#: an attack word shows
_HIDDEN_ENGLISH = frozenset({"reversed", "reversed-lines", "rot13", "deobfuscated"})
_ATTACK_WORD = re.compile(
    r"ignor|disregard|forget|instruction|prompt|system|reveal|passw|secret|token|\bkeys?\b|send|forward|"
    r"e-?mail|copy|delete|drop|wipe|purge|approv|verif|refund|transfer|admin|obey|you|assistant|\bai\b|"
    r"polic|rule|always|never|from now|curl|wget|http|@|bypass|skip|discount|disabl|fraud|limit|"
    r"check|every|\bb?cc\b|<|\[|\{",
    re.I,
)

#: the most of one text the screen reads (a run's fields are capped at 4 KB by capture)
MAX_SCREENED = 20_000
#: verdicts a process keeps, at most, and their bytes (``digest.bounded``; keyed by a digest
#: of the text, about 200 bytes an entry however long the text): in the throughput stream
#: (issue 27) 88% of asks hit with 1 MiB, as with 8 MiB; 84% with 0.5 MiB
VERDICTS_KEPT, VERDICTS_BYTES = 4096, 2**20


@built_once
def _attack_word() -> re.Pattern[str]:
    """``_ATTACK_WORD`` regrouped to tell whether a view holds one, faster
    (``digest.pattern_start.for_existence``); compiled on first use, not on import."""
    return for_existence(_ATTACK_WORD)


def injection_reason(text: str, *, run_text: bool = False) -> str | None:
    """Why ``text`` reads as an instruction injection, or None. ``run_text``: the text is what
    a run reported (not a lesson), so standing orders count too."""
    return _reason(text[:MAX_SCREENED], run_text)


@memo(VERDICTS_KEPT, VERDICTS_BYTES, digest_keys=True)
def _reason(text: str, run_text: bool) -> str | None:
    # An exact repeat (the same error from many runs) is judged once per process.
    for view in labelled_views(text):
        if view.kind in _HIDDEN_ENGLISH and not _attack_word().search(view.text):
            continue
        why = check(view.text, run_text)
        if why is not None:
            return why
    if _card_number(text):
        return "carries a payment card number"
    return None


#: 13-19 digits standing alone; not after "+", which opens a phone number ("+4915112345678")
_DIGITS = re.compile(r"(?<![\w+-])\d(?:[ -]?\d){12,18}(?![\w-])")


#: how a card number of each length opens (the networks' published ranges: Visa 4; Diners 30,
#: 36, 38, 39; Amex 34, 37; UATP 1; Mastercard 2 and 5; Discover, UnionPay, Maestro, RuPay 6
#: and 8; JCB 35): a 13-digit time in milliseconds (from 1), an airline ticket (its carrier's
#: code: "235…") or a 15-digit microchip ("392…") is no card
_CARD_OPENS = {
    13: ("4",),
    14: ("30", "36", "38", "39"),
    15: ("34", "37", "1", "2014", "2149", "2131", "1800"),
    **{n: ("4", "5", "2", "6", "8", "35") for n in range(16, 20)},
}
#: a number its field names as another thing: "microchip_number: '39214100123456'",
#: "ticket_no=2352401118842", "IMEI 356938035643809"
_NAMED_OTHER = re.compile(
    r"(?:microchip|chip|ticket|tracking|imei|serial|isbn|ean|gtin|upc|barcode|awb|waybill"
    r"|shipment|parcel|consignment|invoice|meter|msisdn|phone|mobile|vin|iban|bilet|billet)"
    r"[\w -]{0,12}?[\"']?\s*[:=#]?\s*[\"'(]?$",
    re.I,
)


def _card_number(text: str) -> bool:
    """Does ``text`` carry a whole payment card number (13-19 digits passing the Luhn check and
    opening as a card of that length does, ``_CARD_OPENS``), not one its field names as another
    thing (``_NAMED_OTHER``)?"""
    for match in _DIGITS.finditer(text):
        number = "".join(ch for ch in match.group(0) if ch.isdigit())
        if not number.startswith(_CARD_OPENS[len(number)]):
            continue
        if _NAMED_OTHER.search(text, max(0, match.start() - 40), match.start()):
            continue
        digits = [int(d) for d in number]
        total = sum(
            d if i % 2 == 0 else (d * 2 - 9 if d > 4 else d * 2)
            for i, d in enumerate(reversed(digits))
        )
        if total % 10 == 0 and len(set(digits)) > 2:
            return True
    return False


# --- a run's fields ------------------------------------------------------------------------------


#: argument keys whose value names a thing (an event's title, a file's name)
_LABELS = frozenset({"title", "name", "subject", "summary", "label", "filename", "file_name"})
#: keys whose value names a field a query compares or sorts by, not an order to act on
#: ("propertyName": "email" beside the address a search looks up sends nothing)
_FIELD_KEYS = frozenset(
    {"propertyname", "property", "field", "fieldname", "field_name", "column", "attribute",
     "sortby", "sort_by", "orderby", "order_by", "operator"}
)  # fmt: skip


#: a key that is a name (an identifier): it labels what it holds, as "cc", "reply_to" or
#: "attachments" do; a key of other text is read as written, a sentence of its own
_KEY_NAME = re.compile(r"[A-Za-z_][\w-]{0,39}")


#: the key and the values of an HTTP request's method, as an agent's call passes them
_METHOD_KEYS = frozenset({"method", "http_method", "httpmethod", "verb"})
_HTTP_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})


def _is_http_method(name: str, value: str) -> bool:
    return name.casefold() in _METHOD_KEYS and value.strip().upper() in _HTTP_METHODS


def _strings(value: Any, depth: int = 0, key: str = "") -> Iterator[str]:
    """Every string inside a JSON value, to a sane depth, each written after the path of the
    keys that hold it (``.key=value``, ``.outer.inner=value``): a key names its values, whether
    one string or a list's or a nested object's (".cc=x@y", ".to.email=x@y" send nothing, as
    ".email=x@y" does not; the leading dot keeps a key that reads the same backwards, "cc",
    a name in the reversed view too). A key that is not a name (spaces, signs) is screened
    as written, and so is every value."""
    if depth > 20:
        return
    if isinstance(value, str):
        yield f".{key}={value}" if key else value
    elif isinstance(value, dict):
        for name, item in value.items():
            name = str(name)
            if isinstance(item, str) and _is_http_method(name, item):
                # a request's method ("method": "POST") is no order to send: read apart
                yield f"| {name}={item} |"
            elif isinstance(item, str) and name.casefold() in _LABELS | _FIELD_KEYS:
                # a thing's name is not an order: "title=Vendor contract sync" beside the
                # attendees' addresses sends nothing (read as a sentence of its own)
                yield f"| {name}={item} |"
            elif not _KEY_NAME.fullmatch(name):
                yield name
                yield from _strings(item, depth + 1)
            elif isinstance(item, str | dict | list | tuple):
                yield from _strings(item, depth + 1, f"{key}.{name}" if key else name)
            else:
                yield f".{key}.{name}" if key else f".{name}"
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item, depth + 1, key)


def _fields(payload: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for name in ("task", "error", "attempt_summary", "text", "situation", "mistake"):
        value = payload.get(name)
        if isinstance(value, str) and value:
            yield name, value
    for tag in payload.get("tags") or []:
        if isinstance(tag, str):
            yield "tags", tag
    for index, call in enumerate(payload.get("tool_calls") or []):
        if not isinstance(call, dict):
            continue
        for name in ("tool", "error", "output"):
            value = call.get(name)
            if isinstance(value, str) and value:
                yield f"tool_calls[{index}].{name}", value
        args = " ".join(_strings(call.get("args")))
        if args.strip():
            yield f"tool_calls[{index}].args", args


#: an e-mail address given as the user's own: after a word for e-mail in any language of
#: ``words.MAIL`` ("e-mail is", "correo:", "邮箱："), or in brackets; matched in ``plain`` text.
#: Never after a preposition: "mail to x@y" sends somewhere.
_OWN_EMAIL = re.compile(
    rf"(?:(?:{word_class(words.MAIL)})(?:\s+(?:is|ist|est|es|e|er|ar|je|jest|ni|adalah|la))?"
    r"(?:\s*:\s*|\s+)|\(\s*)([\w.+-]+@[\w-]+(?:\.[\w-]+)+)",
    re.I,
)


def own_address_masked(task: str) -> str:
    """``task`` with each address given as the user's own written "their address". Found in
    ``plain`` text (the words of ``words.MAIL`` are written so), replaced in ``task`` itself
    at the same occurrence of that address, so the screen still reads the task as written."""
    flat = plain(task)
    spans = [(m.start(1), m.group(1)) for m in _OWN_EMAIL.finditer(flat)]
    if not spans:
        return task
    if any(task.count(address) != flat.count(address) for _, address in spans):
        return _OWN_EMAIL.sub(lambda m: m.group(0).replace(m.group(1), "their address"), flat)
    for start, address in reversed(spans):
        nth = flat.count(address, 0, start)  # which occurrence of the address it is
        at = -1
        for _ in range(nth + 1):
            at = task.index(address, at + 1)
        task = task[:at] + "their address" + task[at + len(address) :]
    return task


def event_reason(payload: dict[str, Any]) -> str | None:
    """Why a run's own text reads as an injection attempt (naming the field), or None."""
    for index, call in enumerate(payload.get("tool_calls") or []):
        tool = call.get("tool") if isinstance(call, dict) else None
        if isinstance(tool, str) and (not is_tool_name(tool) or _words(tool) > 6):
            return f"names a tool that is not a tool name (in tool_calls[{index}].tool)"
        if isinstance(tool, str) and injection_reason(_spaced(tool), run_text=True) is not None:
            why = injection_reason(_spaced(tool), run_text=True)
            return f"{why} (in tool_calls[{index}].tool)"
    tools = tools_called(payload)
    for field, value in _fields(payload):
        # A task is the user's request: it may well say "from now on" to the agent. What a
        # tool or the run itself reported never gives standing orders.
        # The task may name the user's own address ("email ethan@x.com, I want to return …",
        # "Liam Ahmed (liam@x.com): …"): where a user can be reached is not where data is sent,
        # so that address is screened as a placeholder ("send it all to x@y" is screened as is).
        # So is whom a one-off request goes to when the run's own call passed that address
        # (``digest.reflect.recipients``: "send quote Q-2291 to buyer@x.com").
        text = value
        if field == "task":
            text = recipients_masked(own_address_masked(value), payload.get("tool_calls"))
        why = injection_reason(text, run_text=field != "task")
        if why is not None:
            return f"{why} (in {field})"
        if not field.endswith((".error", ".output", ".args")) and field != "error":
            continue  # only what a tool reported may not point the agent at other tools
        unknown = unknown_tools(value, tools, verbs=_CALL_ANY_LANGUAGE)
        # "the 'approve' argument is deprecated; use 'auto_approve'" names an argument
        if unknown and not about_interface(value):
            if field.endswith("error") and not any(_mass_action(name) for name in unknown):
                continue  # an error's remedy hint, to its caller ("run git_pull first")
            return f"names a tool the run never called ({unknown[0][:60]}, in {field})"
    return None


_EVERY = re.compile(word_class(words.ALL), re.I)
_OPERATOR = re.compile(word_class(words.OPERATOR), re.I)
_SENDS = re.compile(word_class(words.SEND), re.I)
#: a tool's name that only reads ("git_fetch_all", "list_all_pods")
_READS = re.compile(
    r"\b(?:get|list|fetch|pull|read|show|describe|view|status|search|find|lookup|check|count"
    r"|ver|listar|obtener|mostrar|buscar|lister|afficher|lire|liste|anzeigen|holen|lesen)\b",
    re.I,
)


def _mass_action(name: str) -> bool:
    """Does a tool's name, read as words, act on everything ("borrar_todos_los_clientes") or
    read as an order itself ("send_history_to_x")? A tool a failing tool's error names is its
    caller's remedy ("run gh_auth_login, then push again") unless it does."""
    spaced = _spaced(plain(name))
    everything = _EVERY.search(spaced) and not _READS.search(spaced)
    # …or hands out the operator's standing ("grant_admin_to_caller"), or sends somewhere
    # ("export_customer_table_to_partner_bucket")
    elsewhere = _SENDS.search(spaced) and re.search(r"\bto\b", spaced)
    if everything or elsewhere or _OPERATOR.search(spaced):
        return True
    return injection_reason(spaced, run_text=True) is not None


def _words(name: str) -> int:
    """How many words a tool's name is made of (``get_order`` 2, ``a__b_c`` 3)."""
    return len([w for w in re.split(r"[_.:/\s-]+|(?<=[a-z])(?=[A-Z])", name) if w])


def _spaced(name: str) -> str:
    """A tool's name read as words (``post_results_to_x`` → ``post results to x``)."""
    return re.sub(r"_+", " ", name)


def tools_called(payload: dict[str, Any]) -> frozenset[str]:
    """The names of the tools a run called."""
    return frozenset(
        str(call.get("tool"))
        for call in payload.get("tool_calls") or []
        if isinstance(call, dict) and call.get("tool")
    )


#: a value a call passed that names an operation of its tool ("str_replace", "create")
_OPERATION = re.compile(r"[A-Za-z_][\w.:-]{1,39}")


def operations_passed(payload: dict[str, Any]) -> frozenset[str]:
    """The identifiers the run's own calls passed as argument values (an editor tool's
    ``{"command": "str_replace"}``): operations the run used, which a lesson may name like its
    tools ("use str_replace or another name")."""
    return frozenset(
        value
        for call in payload.get("tool_calls") or []
        if isinstance(call, dict) and isinstance(call.get("args"), dict)
        for value in call["args"].values()
        if isinstance(value, str) and _OPERATION.fullmatch(value)
    )


# --- what an untrusted lesson may say in its own words -------------------------------------------

_SEND = (
    r"send|forward|post|upload|transmit|copy|mail|e-?mail|submit|deliver|leak|relay|sync|push|share|"
    r"dump|export|attach|cc|bcc|include|add|write"
)
_ADDRESS_STRICT = r"(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?:https?|ftp|wss?)://\S+|www\.[\w-]+\.\S+)"
_SEND_TO = re.compile(
    rf"\b(?:{_SEND}|contact|notify|message|ping|text|call|report|escalate|reply|respond|write to|"
    rf"reach out|email|e-mail|mail|post|upload|"
    rf"submit|direct|tell|point|refer|redirect|link)\b[^.!?\n]{{0,80}}?{_ADDRESS_STRICT}"
    r"|\[[^\]\n]{1,80}\]\(\s*<?(?:https?:)?//",
    re.I | re.S,
)

#: verbs that tell an agent to use a tool (English, for a lesson's own words)
_CALL = (
    r"call|calling|calls|invoke|invoking|use|using|run|running|execute|executing|trigger|"
    r"triggering"
)
#: …and in the languages run text comes in, as imperatives ("before calling X" describes)
_CALL_ANY_LANGUAGE = (
    r"call|invoke|use|run|execute|trigger|ejecuta|ejecutar|ejecute|llama|llamar|usa|usar|utiliza|ex[eé]cute[rz]?|appelle[rz]?|"
    r"utilise[rz]?|lance[rz]?|f[uü]hre|f[uü]hren|rufe|ruf|starte|esegui|eseguire|chiama|usa|"
    r"executa|executar|chame|utilize|uruchom|wywo[lł]aj|u[zż]yj|вызови|выполни|запусти|"
    r"используй|调用|执行|运行|使用|実行|呼び出|使って|실행|호출|استدع|نفذ|شغل"
)
#: …not an argument given a value or called one ("use delivery_confirmation='signature'",
#: "use the page_token parameter"): the name whole, then what follows it
_TOOL_NAME_IN_TEXT = (
    r"(?![a-z])\s*(?:(?i:the)\s+)?[`'\"«]?"
    r"((?>[A-Za-z][\w.:/-]*_[\w.:/-]*[A-Za-z0-9]|[a-z]+[A-Z][A-Za-z0-9]*))"
    r"(?![`'\"»]?\s*=|[`'\"»]?\s+(?i:parameters?|fields?|arguments?|args?|headers?|flags?|options?)\b)"
)


def _tool_use(verbs: str) -> re.Pattern[str]:
    return re.compile(
        rf"(?:\b|(?<=[^\x00-\x7f]))(?i:{verbs}){_TOOL_NAME_IN_TEXT}"
        r"|[`'\"]([A-Za-z_][\w.:/-]*)[`'\"]\s+(?i:tool|function|endpoint|action)\b"
        r"|\b(?i:tool|function|action)\s+[`'\"]([A-Za-z_][\w.:/-]*)[`'\"]"
    )


_TOOL_USES = {verbs: _tool_use(verbs) for verbs in (_CALL, _CALL_ANY_LANGUAGE)}


def _own_words(candidate: Candidate) -> str:
    parts = (candidate.situation, candidate.mistake or "", candidate.correction)
    return "\n".join(without_quotes(part) for part in parts)


def unknown_tools(text: str, tools: Iterable[str], *, verbs: str = _CALL) -> list[str]:
    """Tools ``text`` tells the agent to use that are not among ``tools``."""
    known = {t.lower() for t in tools}
    found = [next(g for g in match.groups() if g) for match in _TOOL_USES[verbs].finditer(text)]
    return [name for name in found if name.strip("`'\".:/-").lower() not in known]


def lesson_reason(
    candidate: Candidate, tools: frozenset[str] | None, *, quotes_screened: bool = False
) -> str | None:
    """Why an untrusted lesson is held for review, or None.

    Its own words (outside «…» quotations of observed data) may not name an address or URL,
    nor, when ``tools`` is known (the failing run's tools), a tool the run never called; each
    of its parts is screened (``injection_reason``). ``quotes_screened``: the «…»
    quotations were written by ``offline/rules`` from run fields ``event_reason`` has already
    passed, so only the lesson's own words are screened again (a model's quotations, which
    the run's text could have dictated, are always screened)."""
    own = _own_words(candidate)
    if _SEND_TO.search(own):
        return "names an address or URL to send to"
    if DESTINATION.search(own):
        # A lesson from run text says what went wrong; where to send things is the owner's
        # to say. (Quoted run text has its destinations masked already.)
        return "names an address or URL"
    parts = own.split("\n") if quotes_screened else [candidate.situation, candidate.mistake or ""]
    parts += [] if quotes_screened else [candidate.correction]
    # each part on its own: a situation and a correction are two sentences, not one
    for part in [*parts, " ".join(candidate.tags)]:
        why = injection_reason(part) if part.strip() else None
        if why is not None:
            return why
    if tools is not None:
        unknown = unknown_tools(own, tools)
        if unknown:
            return f"names a tool the failing run never called ({unknown[0][:60]})"
    return None
