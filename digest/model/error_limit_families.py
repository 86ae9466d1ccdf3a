"""The error families of limits: a quantity or amount over a cap, a value under a minimum, an
address outside the delivery area. The last of the families of states and preconditions
(``digest.model.error_state_families`` tries them after the others), with the phrasings of
the languages the error families read.
"""

from __future__ import annotations

from digest.model.error_family import Family
from digest.model.error_family import any_of as _any

#: the families of limits, in the order they are tried
LIMIT_FAMILIES: tuple[Family, ...] = (
    Family(
        "limit-exceeded",
        _any(
            r"exceed(?:s|ed)?(?: the)? (?:[\w'’]+ ){0,3}?(?:maximum|max|limit|allowed|allowance|"
            r"quota|amount)|(?:maximum|max|limit|quota|cap)\b[^.;\n]{0,30}?\b(?:exceeded|reached|"
            r"surpassed)|too (?:many|much|large|long|big|high)|more than (?:the )?(?:allowed|"
            r"maximum|permitted)|(?:cannot|can't|may not|must not) exceed|\bat most\b|above the "
            r"(?:maximum|limit)|over the limit|(?:maximum|limit) (?:of|is)"
            r"|no more than \d|(?:is|are) (?:greater|larger|more|higher|longer|bigger) than"
            r"|(?:maximum|limit) (?:allowed|permitted)"
            r"|(?:is|reached|hit|at) the (?:[\w-]+ ){0,2}(?:limit|maximum|cap)\b"
            r"|\bexceed(?:s|ed|ing)?\b"
            r"|(?:only|up to) \d+ (?:\w+ ){0,3}(?:may|can|are allowed|per)",
            r"überschreitet|überschritten|zu viele|höchstens|excede|supera(?:do)? el (?:límite|"
            r"máximo)|demasiad[oa]s|dépasse|trop de|ultrapassa|supera il|troppi"
            # "at most" as each language says it
            r"|maximal \d|como máximo|a lo sumo|máximo de \d|au maximum|au plus \d|maximum de \d"
            r"|al massimo|massimo (?:di )?\d|no máximo",
            # Dutch, the Nordic languages, Polish, Czech, Finnish and Turkish
            r"overschrijdt|overschreden|te veel|maximaal \d|ten hoogste|överstiger|överskrider"
            r"|för många|högst \d|overstiger|overskrider|for mange|højst \d|høyst \d|przekracza"
            r"|przekroczon|zbyt wiele|za dużo|maksymalnie \d|co najwyżej|překračuje|překročen"
            r"|příliš mnoho|maximálně \d|nejvýše|ylittää|ylitetty|liian (?:monta|paljon|suuri)"
            r"|enintään|aşıyor|aşıldı|aşmaktadır|çok fazla|en fazla|eccede",
        ),
        "Stay within the limit",
        "a quantity or amount may exceed a limit",
        "Tell the customer the limit and reduce or split the request; retrying fails the same.",
        "Keep {arg} within the limit",
    ),
    Family(
        "below-minimum",
        _any(
            r"below (?:the )?(?:minimum|min)\b|less than (?:the )?(?:minimum|required)|(?:must|"
            r"should) be (?:at least|greater than|more than|positive)|minimum (?:order|amount|"
            r"quantity|age|of)|(?:requires?|needs?) an? minimum\b|minimum \w+ of \d"
            r"|too (?:small|short|few|low|young)|\bat least\b|minimum \w+(?: \w+)? is \d",
            r"mindestens|unter dem minimum|al menos|por debajo del mínimo|au moins|inférieur au "
            r"minimum|pelo menos|abaixo do mínimo|almeno|sotto il minimo|como mínimo|mínimo de \d"
            r"|au minimum|minimum de \d|no mínimo|minimo (?:di )?\d",
            r"mínim[oa] de \d|(?:idade|edad|età|âge) mínim|âge minimum|minimaal \d|minstens"
            r"|ten minste|minimumleeftijd|minst \d|minimiålder|lägst \d|mindst \d|minimumsalder"
            r"|co najmniej|minimaln\w+ \w+|poniżej minimum|nejméně|alespoň|minimáln\w+ \w+"
            r"|vähintään|alaikäraja|en az \d|asgari",
        ),
        "Meet the minimum first",
        "a value may be below the minimum allowed",
        "Tell the customer the minimum; retrying fails the same.",
        "Check {arg} meets the minimum",
    ),
    Family(
        "delivery-area",
        _any(
            r"(?:cannot|can't|unable to|does not|do not|don't) (?:ship|deliver)|outside (?:the |"
            r"our )?(?:delivery|service|shipping|coverage) (?:area|zone|region)|not (?:deliverable"
            r"|serviceable)|undeliverable|no (?:delivery|shipping) to|(?:invalid|incomplete) "
            r"(?:shipping |delivery |postal )?address",
            r"außerhalb des liefergebiet|lieferung nicht möglich|fuera de(?:l área| la zona) de "
            r"(?:entrega|reparto)|hors (?:de la )?zone de livraison|fora da área de entrega"
            r"|fuori dall'area di consegna",
        ),
        "Check the delivery address first",
        "the address may be outside the delivery area or incomplete",
        "Confirm the address with the customer or offer another option.",
    ),
)
