"""Views of untrusted text for the injection screen: the forms its rules run on, so that
disguises (look-alike letters, invisible characters, spacing, leetspeak, reversal, encodings:
base64, base32, hex, binary, Morse, percent, entities, escapes) do not help an attacker.

- ``fold``: what a reader sees: NFKC, invisible characters dropped, combining marks on Latin
  letters dropped, look-alike letters folded to Latin inside Latin text, whitespace collapsed.
  Text in its own script (Russian, Greek, Japanese) stays readable.
- ``views``: ``fold`` plus every other form worth screening (``labelled_views`` names them).

Pure, stdlib only. ``views`` reads at most ``MAX_CHARS`` characters; no view is longer than
twice that input.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import re
import unicodedata
from typing import NamedTuple
from urllib.parse import unquote_plus

MAX_CHARS = 20_000  # views() screens this many leading characters of the text
DECODED_BUDGET = 4  # decoded views stop once they add up to this many times the input


def _pairs(spec: str) -> dict[str, str]:
    """``"аa вb"`` → ``{"а": "a", "в": "b"}``."""
    return {pair[0]: pair[1:] for pair in spec.split()}


# Latin letters that look like other Latin letters (small capitals, IPA, stroked forms):
# always folded, they are Latin script anyway.
_LATIN_LOOKALIKES = _pairs(
    "ɑa ɡg ɢg ɪi ʏy ᴀa ʙb ᴄc ᴅd ᴇe ꜰf ʜh ᴊj ᴋk ʟl ᴍm ɴn ᴏo ᴘp ꞯq ʀr ꜱs ᴛt ᴜu ᴠv ᴡw ᴢz "
    "ıi ȷj ɩi ɛe ɾr ʋu ɵo øo ØO đd ĐD ħh łl ŁL ŧt ƀb ɨi ʉu ǥg ɍr ɏy ƶz ȼc ǀl Ɩl ƽs ɣy ɯw "
    "ᴑo ᴦr ᶃg ꞙf ꭇr ꬲe ꬽo ꭒu ℮e"
)
# Letters of other scripts that look like Latin ones (after Unicode's confusables.txt). Folded
# only where the text around them is Latin, or in the "confusables" view.
_SCRIPT_LOOKALIKES = _pairs(
    # Cyrillic
    "аa АA вb ВB гr ԁd еe ЕE ԍg ԌG һh ҺH нh НH іi ІI ꙇi јj ЈJ кk КK ӏl ӀI мm МM пn оo ОO "
    "рp РP ԛq ԚQ сc СC ѕs ЅS тt ТT уy УY үy ҮY ѵv ѴV ԝw ԜW ѡw хx ХX ьb Ьb ҽe "
    # Greek
    "αa ΑA ΒB γy εe ΕE ΖZ ηn ΗH ιi ΙI κk ΚK ΜM νv ΝN οo ΟO ρp ΡP σo τt ΤT υu ΥY χx ΧX ωw "
    "ϳj ͿJ ϜF ϺM "
    # Armenian
    "աw գq զq հh ոn ռn սu ցg քf օo ժd ձd ՍU ՏS ՕO ԼL "
    # Coptic
    "ⲀA ⲁa ⲂB ⲃb ⲈE ⲉe ⲌZ ⲍz ⲎH ⲏh ⲒI ⲓi ⲔK ⲕk ⲘM ⲙm ⲚN ⲛn ⲞO ⲟo ⲢP ⲣp ⲤC ⲥc ⲦT ⲧt "
    "ⲨY ⲩy ⲬX ⲭx ⲅr ⳐL "
    # Lisu
    "ꓐB ꓑP ꓒd ꓓD ꓔT ꓖG ꓗK ꓙJ ꓚC ꓜZ ꓝF ꓟM ꓠN ꓡL ꓢS ꓣR ꓦV ꓧH ꓪW ꓫX ꓬY ꓮA ꓰE ꓲI ꓳO ꓴU "
    # Cherokee (capital letters; the small ones are added below)
    "ᎠD ᎡR ᎢT Ꭵi ᎩY ᎪA ᎫJ ᎬE ᏔW ᎳW ᎷM ᎻH ᎽY ᏀG Ꮒh ᏃZ Ꮟb ᏒR ᏕS ᏙV ᏚS ᏞL ᏟC ᏢP ᏦK Ꮷd ᏳG ᏴB"
)
for _capital, _latin in list(_SCRIPT_LOOKALIKES.items()):
    if "\u13a0" <= _capital <= "\u13ef":  # Cherokee small letters mirror the capitals
        _SCRIPT_LOOKALIKES[chr(ord(_capital) - 0x13A0 + 0xAB70)] = _latin.lower()
    elif "\u13f0" <= _capital <= "\u13f5":
        _SCRIPT_LOOKALIKES[chr(ord(_capital) + 8)] = _latin.lower()
_SCRIPT_LOOKALIKES["\uab81"] = "r"  # CHEROKEE SMALL LETTER HU

# Applied to every character before anything else: Latin look-alikes, enclosed and regional
# indicator letters NFKC leaves alone, and invisible characters that are not format (Cf):
# control characters, variation selectors, the grapheme joiner, Hangul fillers.
_ALWAYS: dict[int, str | None] = {ord(k): v for k, v in _LATIN_LOOKALIKES.items()}
for _i in range(26):
    for _base in (0x1F1E6, 0x1F150, 0x1F170):  # 🇦, 🅐, 🅰
        _ALWAYS[_base + _i] = chr(ord("A") + _i)
_INVISIBLE = [
    *range(0x00, 0x09), *range(0x0E, 0x20), *range(0x7F, 0x85), *range(0x86, 0xA0),
    0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0,
    *range(0x180B, 0x1810), *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0),
]  # fmt: skip
_ALWAYS.update(dict.fromkeys(_INVISIBLE))
_ALWAYS[0x85] = "\n"
_ALWAYS[0x2800] = " "  # braille blank
_ASCII_ALWAYS = {k: v for k, v in _ALWAYS.items() if k < 0x80}

_LATIN, _NATIVE, _AMBIGUOUS = 0, 1, 2


def _is_latin(ch: str) -> bool:
    return ch < "\x80" or unicodedata.name(ch, "").startswith("LATIN")


def _emit(word: str, fold: bool) -> str:
    """``word`` with look-alikes folded (if ``fold``) and combining marks on Latin letters
    dropped; marks on letters of other scripts (й, が, हि) stay."""
    if word.isascii():
        return word
    out: list[str] = []
    latin_base = True
    for ch in word:
        if unicodedata.category(ch)[0] == "M":
            if not latin_base:
                out.append(ch)
            continue
        if fold:
            ch = _SCRIPT_LOOKALIKES.get(ch, ch)
        out.append(ch)
        latin_base = _is_latin(ch)
    return "".join(out)


def _layers(text: str) -> tuple[str, str, str]:
    """``(plain, folded, full)``, whitespace not yet collapsed. ``plain`` folds no other
    script's letters, ``full`` folds every look-alike, ``folded`` those in Latin context."""
    if text.isascii():
        text = text.translate(_ASCII_ALWAYS)
        return text, text, text
    # NFKC can expand a character eighteen-fold (U+FDFA); keep the work linear.
    text = unicodedata.normalize("NFKC", text)[: 2 * len(text) + 64]
    text = unicodedata.normalize("NFD", text).translate(_ALWAYS)
    segments: list[str] = []  # alternately non-word and word, starting with non-word
    kinds: list[int] = []  # one per word
    buf: list[str] = []
    in_word = has_latin = has_native = False
    for ch in text + " ":
        if ch < "\x80":
            is_letter = ch.isalpha()
            if is_letter:
                has_latin = True
        else:
            category = unicodedata.category(ch)
            if category == "Cf":
                continue  # zero-width, bidi controls, soft hyphen, TAG characters
            is_letter = category[0] == "L"
            if category[0] == "M":
                if in_word:
                    buf.append(ch)
                continue  # marks outside words (on spaces, digits, symbols) go
            if is_letter and ch not in _SCRIPT_LOOKALIKES:  # look-alikes decide nothing
                has_latin, has_native = has_latin or _is_latin(ch), has_native or not _is_latin(ch)
        if is_letter != in_word:
            segments.append("".join(buf))
            buf = []
            if in_word:
                kinds.append(_LATIN if has_latin else _NATIVE if has_native else _AMBIGUOUS)
                has_latin = has_native = False
            in_word = is_letter
        buf.append(ch)
    segments.append("".join(buf)[:-1])
    # An all-look-alike word ("он", "рое") is folded when the nearest decided words on both
    # sides are Latin (or missing on one side): "іѕ" in "this іѕ a test", not "не" in Russian.
    neighbours: list[list[int | None]] = [[None, None] for _ in kinds]
    for side, order in ((0, range(len(kinds))), (1, range(len(kinds) - 1, -1, -1))):
        last: int | None = None
        for i in order:
            neighbours[i][side] = last
            if kinds[i] != _AMBIGUOUS:
                last = kinds[i]
    fold_word = [
        kind == _LATIN or (kind == _AMBIGUOUS and _NATIVE not in pair and pair != [None, None])
        for kind, pair in zip(kinds, neighbours, strict=True)
    ]
    plain, folded, full = [segments[0]], [segments[0]], [segments[0]]
    for i in range(len(kinds)):
        word, after = segments[2 * i + 1], segments[2 * i + 2]
        plain_word, full_word = _emit(word, False), _emit(word, True)
        plain += (plain_word, after)
        folded += (full_word if fold_word[i] else plain_word, after)
        full += (full_word, after)
    nfc = unicodedata.normalize
    return nfc("NFC", "".join(plain)), nfc("NFC", "".join(folded)), nfc("NFC", "".join(full))


def _collapse(text: str) -> str:
    return " ".join(text.split())  # whitespace runs (newlines too) become single spaces


#: a blank line that ends a sentence: after a word (not a colon, comma or stop) and before a
#: capital, as an SDK's multi-line error reads ("Attempt to send to unsubscribed recipient
#: ⏎⏎ More information …"); "send the log ⏎⏎ to https://…" and "here: ⏎⏎ https://…" go on
_PARAGRAPH_STOP = re.compile(r"(?<=[^\s.:,;!?])[ \t]*\n[ \t]*\n\s*(?=[A-Z])")


def _sentences_kept(text: str) -> str:
    """``text`` collapsed, each blank line that ends a sentence (``_PARAGRAPH_STOP``) a stop."""
    return _collapse(_PARAGRAPH_STOP.sub(". ", text))


def fold(text: str) -> str:
    """``text`` as a reader sees it: NFKC (fullwidth, mathematical and circled letters become
    ASCII), format and control characters dropped (zero-width, bidi controls, soft hyphen,
    TAG characters), combining marks on Latin letters dropped, look-alike letters of other
    scripts folded to Latin inside mixed-script words and in Latin context, whitespace
    collapsed. Words in their own script stay as they are; case is kept."""
    return _collapse(_layers(text)[1])


# Single letters joined by one repeated separator of 1-3 characters: "i g n o r e",
# "i.g.n.o.r.e", "i - g - n"; a wider gap ends the word.
_SPACED = re.compile(
    r"(?<![^\W_])[^\W_](?P<sep>[ \t._*~+·•-]{1,3})[^\W_](?:(?P=sep)[^\W_])*(?![^\W_])"
)
_INNER_HYPHEN = re.compile(r"(?<=[^\W\d_])[-\u2010\u2011](?=[^\W\d_])")
_TOKEN = re.compile(r"[\w@$|]+")
_LEET = str.maketrans("013457@$|", "oieastasl")
_LEET_CHARS = frozenset("013457@$|")


def _unleet(match: re.Match[str]) -> str:
    token = match.group()
    if _LEET_CHARS.isdisjoint(token) or not any(ch.isalpha() for ch in token):
        return token
    return token.translate(_LEET)


#: names a tool or a rule gives to things: snake_case and dotted identifiers
#: ("ignore_unknown_fields", "python.lang.security.audit"), quoted kebab-case rule ids
#: ("'ignore-previous-instructions'") and short bracketed tags ("[skip ci]"); never part of an
#: address, nor a name that names a secret ("secret_key")
_NAME = re.compile(
    r"(?<![@/\w.-])(?![\w.-]*(?:key|secret|token|passw|credential))"
    r"(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z][a-z0-9-]+(?:\.[a-z][a-z0-9-]+){2,})(?![\w@-]|\.\w)"
    r"|(?<=['\"`])[a-z0-9]+(?:-[a-z0-9]+){2,}(?=['\"`])|\[[a-z][a-z .:-]{0,20}\]"
)


def unnamed(text: str) -> str:
    """``text`` with each name written "name": "input matched rule 'ignore-previous-
    instructions'" and "argument supplied: ignore_instructions" quote a name, they ask nothing.
    The tripwire's sentence checks read text so (its checks for destructive names and markers
    read the names as written)."""
    return _NAME.sub("name", text)


def _deobfuscate(text: str) -> str:
    """Spaced-out letters joined, hyphens inside words removed, leetspeak folded in tokens that
    mix letters with 0 1 3 4 5 7 @ $ |. Underscores stay: a snake_case name is a name (a tool's
    own name is read as words where tools are screened, ``screen.event_reason``)."""
    text = unnamed(_SPACED.sub(lambda m: m.group()[:: 1 + len(m.group("sep"))], text))
    text = _INNER_HYPHEN.sub("", text)
    return _TOKEN.sub(_unleet, text)


_TAG_RUN = re.compile("[\U000e0020-\U000e007e]+")
_TAG_TO_ASCII = {cp: cp - 0xE0000 for cp in range(0xE0020, 0xE007F)}
# A right-to-left override runs to the next bidi embedding control or the end of the line.
_RLO_SPAN = re.compile("\u202e([^\u202a-\u202e\u2066-\u2069\n]*)")


def _readable(raw: bytes) -> str | None:
    """``raw`` as UTF-8 text if that is printable and mostly letters and digits."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(ch.isprintable() or ch in "\t\n\r" for ch in text)
    letters = sum(ch.isalpha() for ch in text)
    alnum = sum(ch.isalnum() for ch in text)
    solid = len(text) - text.count(" ")
    if printable >= 0.95 * len(text) and letters >= 3 and alnum >= 0.3 * solid:
        return text
    return None


_B64_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}")
_B32_RUN = re.compile(r"(?<![A-Za-z0-9])(?:[A-Z2-7]{16,}|[a-z2-7]{16,})(?![A-Za-z0-9])")
# Hex bytes, alone in their word: "69676e6f7265...", "69 67 6e ...", "69:67:...", "\\x69\\x67..."
_HEX_RUN = re.compile(
    r"(?<![0-9A-Za-z\\])(?:0x|\\x)?[0-9A-Fa-f]{2}(?:(?:[ :]|\\x)?[0-9A-Fa-f]{2}){7,}"
    r"(?![0-9A-Za-z])"
)
_HEXISH = re.compile(r"[0-9A-Fa-f-]+")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}|[^\W_]\+[^\W_]+\+[^\W_]")
_ESC_BYTES = re.compile(r"(?:\\x[0-9A-Fa-f]{2})+")
_ESC_CHAR = re.compile(r"\\u\{([0-9A-Fa-f]{1,6})\}|\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


def _base64(run: str) -> bytes | None:
    if run.isalpha() or _HEXISH.fullmatch(run):
        return None  # a long word, a number, a hex id or UUID: not base64
    urlsafe = "-" in run or "_" in run
    if urlsafe and ("+" in run or "/" in run):
        return None
    run = run[:-1] if len(run) % 4 == 1 else run  # a length of 4n+1 is never valid base64
    padded = run + "=" * (-len(run) % 4)
    return base64.b64decode(padded, altchars=b"-_" if urlsafe else None, validate=True)


def _base32(run: str) -> bytes | None:
    if run.isalpha() or run.isdigit():
        return None
    return base64.b32decode(run.upper() + "=" * (-len(run) % 8))


def _hex(run: str) -> bytes:
    return bytes.fromhex(re.sub(r"\\x|[ :]", "", run.removeprefix("0x")))


_BINARY_RUN = re.compile(r"(?<![01])[01]{8}(?:[ _.,]?[01]{8}){3,}(?![01])")
#: Morse code: letters, digits and a few signs, one code each
_MORSE_CODE = dict(
    zip([
        ".-", "-...", "-.-.", "-..", ".", "..-.", "--.", "....", "..", ".---", "-.-", ".-..",
        "--", "-.", "---", ".--.", "--.-", ".-.", "...", "-", "..-", "...-", ".--", "-..-", "-.--",
        "--..",
        "-----", ".----", "..---", "...--", "....-", ".....", "-....", "--...", "---..", "----.",
        ".-.-.-", "--..--", "..--..", ".----.", "-.-.--", "-..-.", ".--.-.", "---...",
    ], "abcdefghijklmnopqrstuvwxyz0123456789.,?'!/@:", strict=True)
)  # fmt: skip
# Dots and dashes (any of the look-alikes people use) in letter groups, words split by "/" or "|"
_MORSE_RUN = re.compile(r"(?:[.\-·•−–_]{1,7}(?: ?[/|] ?| ))+[.\-·•−–_]{1,7}")


def _binary(run: str) -> bytes:
    return int(re.sub(r"[^01]", "", run), 2).to_bytes(len(re.sub(r"[^01]", "", run)) // 8, "big")


def _morse(run: str) -> bytes | None:
    run = run.translate(str.maketrans("·•−–_", "..---"))
    words = [w.split() for w in re.split(r"\s*[/|]\s*", run)]
    letters = [[_MORSE_CODE.get(code) for code in word] for word in words]
    found = [ch for w in letters for ch in w]
    if len(found) < 6 or None in found or len(set(found)) < 4:
        return None  # not Morse: a rule line, a separator, a diff
    return " ".join("".join(ch or "" for ch in w) for w in letters).encode()


_PAYLOADS = (
    ("base64", _B64_RUN, _base64), ("base32", _B32_RUN, _base32), ("hex", _HEX_RUN, _hex),
    ("binary", _BINARY_RUN, _binary), ("morse", _MORSE_RUN, _morse),
)  # fmt: skip


def _escaped_bytes(match: re.Match[str]) -> str:
    raw = bytes.fromhex(match.group().replace("\\x", ""))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _escaped_char(match: re.Match[str]) -> str:
    code = int(next(group for group in match.groups() if group), 16)
    return chr(code) if code <= 0x10FFFF else match.group()


def _whole(text: str) -> list[tuple[str, str]]:
    """The whole text with percent-encoding, HTML entities or backslash escapes decoded."""
    found = []
    if _PERCENT.search(text):
        found.append(("percent", unquote_plus(text)))
    if "&" in text:
        found.append(("html", html.unescape(text)))
    if "\\" in text:
        unescaped = _ESC_CHAR.sub(_escaped_char, _ESC_BYTES.sub(_escaped_bytes, text))
        # \ud83d\ude00 pairs become one character; a lone surrogate becomes U+FFFD
        unescaped = unescaped.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        found.append(("escapes", unescaped))
    return [(kind, decoded) for kind, decoded in found if decoded != text]


def _decodings(text: str) -> list[tuple[str, str]]:
    """Every readable decoding of ``text`` one level deep, each named by its encoding."""
    found = []
    for kind, pattern, decode in _PAYLOADS:
        for match in pattern.finditer(text):
            try:
                raw = decode(match.group())
            except (binascii.Error, ValueError):
                continue
            if raw is not None and (decoded := _readable(raw)) is not None:
                found.append((kind, decoded))
    return found + _whole(text)


def _rot13(text: str) -> str:
    return codecs.encode(text, "rot13")


class View(NamedTuple):
    """One form of a text to screen, and the transformation that produced it."""

    kind: str
    text: str


def labelled_views(text: str) -> list[View]:
    """The distinct non-empty forms of ``text`` to screen, ``fold(text)`` first (its blank lines
    that end a sentence made stops), each named
    (see ``views``)."""
    text = text[:MAX_CHARS]
    limit, budget = 2 * len(text), DECODED_BUDGET * len(text)
    seen: set[str] = set()
    found: list[View] = []

    def add(kind: str, form: str, *, folded: bool = False) -> int:
        form = (form if folded else fold(form))[:limit]
        if not form or form in seen:
            return 0
        seen.add(form)
        found.append(View(kind, form))
        return len(form)

    plain, folded, full = _layers(text)
    shown = _collapse(folded)  # decoded and rotated as one run of text
    add("folded", _sentences_kept(folded), folded=True)
    add("confusables", _sentences_kept(full), folded=True)
    add("plain", _sentences_kept(plain), folded=True)
    hidden = " ".join(run.translate(_TAG_TO_ASCII) for run in _TAG_RUN.findall(text))
    add("tags", hidden)
    add("deobfuscated", _sentences_kept(_deobfuscate(full)), folded=True)
    add("reversed", _collapse(folded[::-1]), folded=True)
    add("reversed-lines", _collapse("\n".join(ln[::-1] for ln in folded.splitlines())), folded=True)
    if "\u202e" in text:
        add("rtl-override", _RLO_SPAN.sub(lambda m: m.group(1)[::-1], text))
    add("rot13", _rot13(shown), folded=True)
    # Payloads (base64, base32, hex) come before whole-text decodings, and each is followed by
    # its own decodings, so that no pile of decoy encodings can crowd a payload out.
    spent = 0
    for source in (shown, fold(hidden)):
        for kind, payload in _decodings(source):
            if spent > budget:
                return found
            payload = fold(payload)
            spent += add(kind, payload, folded=True)
            if kind in ("base64", "base32", "hex", "binary", "morse"):
                spent += add(f"{kind}>rot13", _rot13(payload), folded=True)
            for inner_kind, inner in _decodings(payload):
                spent += add(f"{kind}>{inner_kind}", inner)
    return found


def views(text: str) -> list[str]:
    """The distinct forms of ``text`` an injection screen should run its rules on:

    ``fold(text)`` with each blank line that ends a sentence made a stop (``_PARAGRAPH_STOP``,
    the readable forms alike); every look-alike folded ("confusables"); other scripts left unfolded
    ("plain"); text hidden in TAG characters ("tags"); spaced/dotted letters joined, inner
    hyphens removed, leetspeak folded ("deobfuscated"); reversed, whole and per line;
    right-to-left overrides undone ("rtl-override"); rot13; and the readable base64, base32,
    hex, binary, Morse, percent, HTML-entity and backslash-escape decodings, nested once. Forms
    that equal an earlier one are left out. Reads at most ``MAX_CHARS`` characters; each form is
    at most twice that long.
    """
    return [view.text for view in labelled_views(text)]
