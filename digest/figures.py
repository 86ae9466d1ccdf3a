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


def figures(text: str) -> frozenset[str]:
    """The figures ``text`` states, as digits: "6-month" and "six months" both give ``6``,
    "3.5 kg" gives ``3.5`` (a decimal comma read as a point), "10,000" and "10.000" give
    ``10000`` (three digits after the separator, in groups, are thousands)."""
    # thousands separators first: "10,000" and "10000" state one figure
    text = _GROUPED.sub(lambda m: m.group(0).replace(m.group(1), "").replace(",", "."), text)
    found = {m.replace(",", ".") for m in _NUMBER.findall(text)}
    for word in _WORD.findall(text.casefold()):
        value = _WORDS.get(word)
        if value is not None:
            found.add(str(value))
    return frozenset(found)


def figures_apart(a: str, b: str) -> bool:
    """Does each text state a figure the other does not (300 seconds and 65535; 21 and 25)?
    One text stating fewer figures than the other says less, not something else."""
    mine, theirs = figures(a), figures(b)
    return bool(mine - theirs) and bool(theirs - mine)
