"""The scope of an owner's answer (``digest.facts``): the case a figure is said of, and its
figures shown as values.

"We are open 9-5." and, later, "On Saturdays we open 10-2.": the second answer gives other
figures, yet it does not replace the first one; it names a case the first did not speak of
(Saturdays), a narrower fact beside it. What names such a case is a qualifier: a phrase that
opens with a preposition (or, at a sentence's opening, with the article a weekday or a season
takes: "Le samedi", "Los sábados", "Am Samstag") and holds words but no figure. "until 2 pm",
"from 9 to 5" and "per room" carry the figure or its unit: they are the value, not its case.

``shown`` writes an answer's figures as the values it states: a range is one value ("4-6"),
so a reason reads "2-3 → 5-6", not "2, 3 → 5, 6". Pure functions on text.
"""

from __future__ import annotations

import re

from digest.answer_figures import ranges

#: prepositions that open the case a statement is about, by language ("on Saturdays", "for
#: children", "during the holidays", "in winter", "am Wochenende", "für
#: Kinder", "pour les enfants", "pendant les vacances", "para niños", "durante", "per i
#: bambini", "voor kinderen", "tijdens", "för barn", "på helgdagar", "dla dzieci", "w soboty")
_PREPOSITIONS = (
    r"on|for|in|during|at|over"
    r"|am|an|im|für|bei|während|zu|über"
    r"|pour|pendant|en|au|aux|dans|sur"
    r"|para|durante|nos|nas|aos|às|em|ao"
    r"|nel|nei|nella|nelle|al|ai|alla|il"
    r"|op|voor|tijdens|bij"
    r"|på|för|under|om"
    r"|dla|w|podczas"
)
#: articles that, opening a sentence, name its case ("Le samedi …", "Los domingos …")
_OPENING_ARTICLES = r"le|la|les|el|la|los|las|o|a|os|as|il|lo|gli|de|het|der|die|das"
#: words a qualifier phrase holds that name no case: how much, how often, in what manner
#: (and "in order", "in Ordnung", "in orde", "en ordre", "in regola": all right)
_NO_CASE = frozenset(
    """least most total all general advance latest earliest example average cash person
    once time times hour hours day days week weeks month months year years minute minutes
    insgesamt allgemeinen voraus spätestens bar general total efectivo general geral total
    dinheiro generale totale contanti algemeen totaal contant allmänhet totalt kontant
    ogóle sumie gotówce
    order ordnung orde ordre regola porządku pořádku""".split()  # noqa: SIM905
)
_WORDS = r"(?:[^\W\d_][\w'’-]*)"
#: a preposition and up to three words after it, none of them a figure, ending where a
#: figure, a punctuation mark or the end of the text comes
_INSIDE = re.compile(
    rf"(?<![\w-])(?:{_PREPOSITIONS})\s+((?:{_WORDS}\s+){{0,2}}{_WORDS})(?=\s*(?:[,.;:!?)]|$))",
    re.IGNORECASE,
)
#: a sentence's opening phrase: a preposition and up to three words, none a figure ("On
#: Saturdays we open 10-2": "Saturdays we"; the caller cuts it at its first function word),
#: or an article and the one noun it opens ("Los sábados abrimos …": "sábados")
_OPENING = re.compile(
    rf"(?:^|(?<=[.!?;]\s))\W*(?:(?:{_PREPOSITIONS})\s+((?:{_WORDS}\s+){{0,2}}{_WORDS})"
    rf"|(?:{_OPENING_ARTICLES})\s+({_WORDS}))(?=[\s,])",
    re.IGNORECASE,
)


def qualifiers(answer: str) -> list[str]:
    """The phrases of ``answer`` that name a case of what it states: a sentence's opening
    prepositional phrase (or article and noun: "Le samedi") and any prepositional phrase that
    ends a clause, holding words and no figure. Each is returned as its words; words that name
    no case ("at least", "in total", "in advance", "in cash") are left out."""
    found: list[str] = []
    for pattern in (_OPENING, _INSIDE):
        for match in pattern.finditer(answer):
            phrase = next(group for group in match.groups() if group)
            words = [w for w in phrase.split() if w.casefold() not in _NO_CASE]
            if words:
                found.append(" ".join(words))
    return found


def shown(answer: str, numbers: tuple[str, ...]) -> str:
    """``numbers`` (an answer's figures) written as the values ``answer`` states: each range
    it writes as one value ("4-6"), then the figures outside any range, in order."""
    values: list[str] = []
    used: set[str] = set()
    for low, high in ranges(answer):
        if low in numbers and high in numbers and f"{low}-{high}" not in values:
            values.append(f"{low}-{high}")
            used.update((low, high))
    values.extend(n for n in numbers if n not in used)
    return ", ".join(values)
