"""The figures a text states: its numbers, and numbers written as words, as digits ("six
months" and "6-month" both state 6), in the languages the product screens most. Pure
functions on text; what a figure is about is the caller's business.
"""

from __future__ import annotations

import re

#: numbers written as words, by language, to their digits ("one" and its kin are left out:
#: they are pronouns and articles as often as figures; so is a spelling that is a common word
#: of another language: "to", "due", "once", "sei", "onze", "sept")
_WORDS: dict[str, int] = {}
for _value, _spellings in {
    2: "two zwei deux dos dois twee två",
    3: "three drei trois tres três tre drie",
    4: "four vier quatre cuatro quatro quattro fyra",
    5: "five fünf cinq cinco cinque vijf fem",
    6: "six sechs seis zes seks",
    7: "seven sieben siete sete sette zeven syv sju",
    8: "eight acht huit ocho oito otto otte åtta",
    9: "nine neun neuf nueve nove negen nio",
    10: "ten zehn dix diez dez dieci tio",
    11: "eleven elf undici",
    12: "twelve zwölf douze doce dodici twaalf tolv",
    14: "fourteen vierzehn quatorze catorce catorze quattordici veertien fjorten",
    15: "fifteen fünfzehn quinze quince quindici vijftien femten",
    20: "twenty zwanzig vingt veinte vinte venti twintig tyve tjugo",
    24: "twenty-four vierundzwanzig",
    30: "thirty dreißig trente treinta trinta trenta dertig tredive trettio",
    48: "forty-eight",
    50: "fifty fünfzig cinquante cincuenta cinquenta cinquanta vijftig",
    60: "sixty sechzig soixante sesenta sessenta sessanta zestig",
    90: "ninety neunzig",
    100: "hundred hundert cien cem cento honderd hundrede",
}.items():
    _WORDS.update(dict.fromkeys(_spellings.split(), _value))

_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
#: a number written with thousands separators ("10,000", "10.000", "1,250,000"): one figure
_GROUPED = re.compile(r"\b[1-9]\d{0,2}(?:([.,])\d{3})(?:\1\d{3})*(?:(?!\1)[.,]\d{1,2})?(?![.,]?\d)")
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)?", re.UNICODE)


#: a time of day on the 12-hour clock ("5pm", "5:30 p.m.", "9:00 am")
_TWELVE = re.compile(r"\b(1[0-2]|0?[1-9])(?::([0-5]\d))?\s?([ap])\.?m\b\.?", re.I)
#: a time of day with its minutes ("09:00", "14h30", "17:00 Uhr")
_CLOCK = re.compile(r"(?<![\d.,:])([01]?\d|2[0-4])(?::|h(?=\d))([0-5]\d)(?![\d:])")
#: a text that gives times of day: a clock's word, "am"/"pm", a time with its minutes; not a
#: word that counts hours as well ("24 uur", "12 heures", "48h": a window, not a time)
_TIME_SAID = re.compile(
    r"\b(?:o'?clock|klockan|kl|klokka|klokken|uhr|[ap]\.?m\.?)(?![^\W\d_])"
    r"|\d:[0-5]\d|\d{1,2}h[0-5]\d",
    re.I,
)


def _hours(text: str) -> str:
    """``text`` with its times of day read as their hours, a full hour as its hour alone:
    "17:00" says 17, "09:00" says 9, "5pm" and "5:00 p.m." say 5 (its 12-hour figure: "after
    six" says it too; ``sets_apart`` reads 5 and 17 as one time where times are given)."""

    def twelve(match: re.Match[str]) -> str:
        hour = int(match.group(1))
        return f"{hour}:{match.group(2)}" if match.group(2) not in (None, "00") else str(hour)

    def clock(match: re.Match[str]) -> str:
        hour, minutes = int(match.group(1)), match.group(2)
        return str(hour) if minutes == "00" else f"{hour}:{minutes}"

    return _CLOCK.sub(clock, _TWELVE.sub(twelve, text))


def figures(text: str) -> frozenset[str]:
    """The figures ``text`` states, as digits: "6-month" and "six months" both give ``6``,
    "3.5 kg" gives ``3.5`` (a decimal comma read as a point), "10,000" and "10.000" give
    ``10000`` (three digits after the separator, in groups, are thousands); a time of day as
    its hour when it is a full hour ("17:00": ``17``; "09:00", "9am", "9:00 a.m.": ``9``)."""
    # thousands separators first: "10,000" and "10000" state one figure
    text = _GROUPED.sub(lambda m: m.group(0).replace(m.group(1), "").replace(",", "."), text)
    found = {m.replace(",", ".") for m in _NUMBER.findall(_hours(text))}
    for word in _WORD.findall(text.casefold()):
        value = _WORDS.get(word)
        if value is not None:
            found.add(str(value))
    return frozenset(found)


def figures_apart(a: str, b: str) -> bool:
    """Does each text state a figure the other does not (300 seconds and 65535; 21 and 25)?
    One text stating fewer figures than the other says less, not something else."""
    mine, theirs = figures(a), figures(b)
    return sets_apart(mine, theirs, clock=on_clocks(says_times(a), says_times(b), mine & theirs))


def on_clocks(one: bool, other: bool, shared: frozenset[str]) -> bool:
    """May two texts' figures be read as times of day on two clocks: both give times
    (``says_times``: ``one``, ``other``), or one does and they share a figure already (the
    other end of one span: "from ten to two" beside "between 10 and 14")?"""
    return (one and other) or ((one or other) and bool(shared))


def says_times(text: str) -> bool:
    """Does ``text`` give times of day ("klockan tio till två", "9am", "17:00", "14 Uhr")?"""
    return bool(_TIME_SAID.search(text))


def sets_apart(mine: frozenset[str], theirs: frozenset[str], *, clock: bool = False) -> bool:
    """Does each set of figures hold one the other lacks? With ``clock`` (``on_clocks``: the
    figures may be times of day) an hour said on the 12-hour clock is the other's on the
    24-hour one: "from ten to two" and "between 10 and 14" state one time."""
    only_mine, only_theirs = set(mine - theirs), set(theirs - mine)
    if clock:
        for one, other in ((only_mine, only_theirs), (only_theirs, only_mine)):
            for hour in sorted(one):
                later = str(int(hour) + 12) if hour.isdigit() and 1 <= int(hour) < 12 else ""
                if later in other:
                    one.discard(hour)
                    other.discard(later)
    return bool(only_mine) and bool(only_theirs)
