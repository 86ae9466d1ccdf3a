"""The function words of the languages the product screens besides English (articles,
conjunctions, auxiliaries, common prepositions): they say nothing of what a text is about.
Data only; read by the static table's glossing (``digest.identity.gloss``) and by what a
reversal is about (``digest.reversal``).
"""

from __future__ import annotations

FUNCTION_WORDS = frozenset(
    """der die das den dem des ein eine einen einem einer und oder ist sind war
    wird werden wurde für mit von zu zum zur im am an auf bei nach aus ihr ihre sie es
    le la les un une des du de et ou est sont été pour avec dans sur par ce cette il elle
    el los las una unos unas y o es son está fue para con en por del al lo se su sus
    o os as um uma e é são foi para com em por do da dos das no na nos nas seu sua
    il lo gli i uno e o è sono stato per con in su del della dei delle al alla suo sua
    het een en is zijn was voor met van op aan bij naar uit ze
    en et og eller er var til med af på fra den det de som har
    ett och är för av till""".split()  # noqa: SIM905
)
