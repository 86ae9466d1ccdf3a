"""Reversals: text saying that a requirement was removed, replaced or inverted.

"The API no longer accepts the Authorization header; send X-Api-Key instead", "deprecated in
favour of v2", "now requires a billing address", "ab sofort nicht mehr", "ya no se acepta":
what used to hold holds no more, and a lesson drawn from it supersedes the lesson it reverses.
``reversal_terms`` finds such a statement and the words it is about; ``reverses`` says whether
a new text reverses an old one (it states a reversal about words the old one speaks of).

Pure functions on text, cheap, in the languages the injection screen reads. The offline judge
uses them to answer a reconcile request as a model would; nothing here decides on its own
what a real model is asked.
"""

from __future__ import annotations

import re
import unicodedata

from digest.bounded import memo
from digest.pattern_start import built_once, for_existence

#: the months, for a change dated by one ("since March", "seit Juni", "desde enero")
_MONTHS_EN = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november"
    r"|december)\b"
)
_MONTHS_DE = (
    r"(?:januar|februar|märz|april|mai|juni|juli|august|september|oktober|november|dezember)\b"
)
_MONTHS_NL = (
    r"(?:januari|februari|maart|april|mei|juni|juli|augustus|september|oktober|november"
    r"|december)\b"
)
_MONTHS_FR = (
    r"(?:janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre)\b"
)
_MONTHS_ES_PT = (
    r"(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre"
    r"|diciembre|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|novembro"
    r"|dezembro)\b"
)

#: a change dated by a season or a recent period rather than a month ("since last autumn",
#: "seit diesem Frühjahr", "depuis l'été", "sedan i höstas", "od jesieni"): what held before
#: that date holds no more. "since" alone: "from spring to autumn" is a season's hours
_SINCE_SEASON = (
    r"since (?:the |last |this )?(?:spring|summer|autumn|fall|winter|last (?:week|month|year)"
    r"|this (?:week|month|year))\b"
    r"|seit (?:dem |diesem |letztem |letzten |vergangenem )?(?:herbst|frühling|frühjahr|sommer"
    r"|winter|monat|jahr|jahresbeginn|jahresanfang|letzter woche|letztem monat|diesem jahr)\b"
    r"|depuis (?:l'|le |la |cet |cette |ce )(?:automne|printemps|été|hiver|mois dernier"
    r"|année|an dernier|semaine dernière|début de l'année)"
    r"|desde (?:el |este |esta |la |o |a |este )?(?:otoño|primavera|verano|invierno"
    r"|mes pasado|año pasado|outono|verão|inverno|mês passado|ano passado|início do ano"
    r"|principios de año)"
    r"|(?:dall'|dalla |da quest'|da questa )(?:autunno|primavera|estate|inverno|anno)\b"
    r"|dal mese scorso|dall'anno scorso"
    r"|sinds (?:de |het |deze |dit |vorige |afgelopen )?(?:herfst|najaar|voorjaar|lente|zomer"
    r"|winter|maand|jaar|week)\b"
    r"|sedan (?:i )?(?:höstas|våras|somras|vintras|förra (?:månaden|året|veckan)|årsskiftet)"
    r"|siden (?:i |sidste |forrige |sist )?(?:efterår\w*|høst\w*|forår\w*|vår\w*|sommer\w*"
    r"|vinter\w*|måned|år|uke|uge)\b"
    r"|\bod (?:jesieni|wiosny|lata|zimy|zeszłego (?:miesiąca|roku|tygodnia)|tego roku"
    r"|początku roku)\b(?!\s+do\b)"
    r"|\b(?:syksystä|keväästä|kesästä|talvesta|viime (?:kuusta|vuodesta|viikosta)"
    r"|tästä vuodesta|vuodenvaihteesta) (?:lähtien|alkaen)\b"
)
#: a switch stated as done ("we've switched to card only", "wir sind auf Karte umgestiegen",
#: "vi er gået over til kun kort"): the old way is gone. Not an offer ("you can switch to")
_SWITCHED = (
    r"(?:we|we've|we have|they|they've|it|has|have|had) (?:\w+ )?(?:switched|changed over"
    r"|gone over|moved over|converted|transitioned) (?:over )?to\b"
    r"|\bumgestiegen\b|\bumgestellt\b|\bsind (?:\S+ ){0,3}übergegangen\b"
    r"|(?:sommes|est|sont|avons) pass(?:é|és|ée|ées) (?:au|à|aux)\b"
    r"|(?:nos hemos|hemos) pasado al?\b|nos pasamos al?\b|hemos cambiado al?\b"
    r"|pass(?:á|a)mos (?:a|para) (?:aceitar|usar|só|apenas|trabalhar)|mud(?:á|a)mos para\b"
    r"|siamo passati (?:a|al|alla|ai|alle)\b"
    r"|overgestapt (?:op|naar)\b|overgegaan (?:op|naar)\b"
    r"|(?:gått|gick) över till\b|övergått till\b|(?:gået|gikk|gått|gik) over til\b"
    r"|skiftet (?:over )?til\b|byttet (?:over )?til\b"
    r"|przeszliśmy na\b|przestawiliśmy się na\b|siirryimme\b|siirryttiin\b|on siirrytty\b"
)

#: phrases that say a requirement was removed, replaced or inverted, by language
_MARKERS = (
    # English
    r"no longer|not any ?more|anymore|is deprecated|was deprecated|deprecated in fav(?:o|ou)r of"
    r"|has been (?:removed|replaced|retired|discontinued|dropped)|(?:was|were|is|are) removed"
    r"|replaced (?:by|with)|instead of|(?:use|send|pass|set|call|provide) \S+ instead"
    r"|now requires?|now (?:accepts?|expects?|needs?|uses?|only)|is now|are now"
    r"|starting (?:from|on|with)|(?:as of|since) (?:v|version|\d|[‹<](?:id|date)[›>])"
    r"|(?:must|should|has to|have to|needs? to) now|now (?:be|must|has to|have to)"
    r"|any ?(?:more|longer)(?=\s*(?:[.;,:!?)]|$))"
    # the negation split from its "any more" by the verb and what it takes ("we don't take
    # that kind of work any more since …", "we can't do that any longer for you")
    # (not a quantity, "any more rooms", nor a comparison, "any more than 5 euros": the clause
    # ends there, or a time, a reason or a place follows)
    r"|(?:\bnot|n't|\bnever) (?:[^\W\d]+ ){1,5}any ?(?:more|longer)"
    r"(?=\s*(?:[.;,:!?)]|$)|\s+(?:since|after|because|as|from|now|these|at|in|here|sorry)\b)"
    r"|(?:has|have) changed|changed to|moved to|renamed (?:to|as)"
    r"|superseded by|not (?:supported|accepted|allowed) any ?(?:more|longer)|obsolete"
    r"|(?:was|were|is|are|been) (?:discontinued|retired|dropped|withdrawn|disabled|abolished)"
    r"|(?:is|are) (?:now )?optional|discontinued"
    # a service that stopped, and a change dated by its month ("since March", "as of June")
    r"|(?:we|they|it|has|have|was|were) (?:stopped|ceased|ended|suspended)\b"
    r"|(?:we|they) quit (?:\w+ing|that|it|this|those|these)\b"
    # …or had to, or chose to ("we had to end BYO", "we decided to drop it"), and a
    # requirement made or become one ("was made mandatory", "became optional")
    r"|(?:had|decided|chose) to (?:end|stop|drop|discontinue|quit|scrap|cancel)\b"
    r"|(?:made|became|become|becomes) (?:mandatory|compulsory|required|obligatory|optional)"
    # a change dated by an event of the business's own ("since the fare change")
    r"|since (?:the|our|we) (?:\w+ ){0,2}(?:change|changed|update|updated|switch|overhaul)\w*"
    # …or by a new thing of its own ("since the new hygiene rules")
    r"|since (?:the|our) new\b"
    r"|no more(?! than)\b|(?:since|as of|starting(?: in)?) " + _MONTHS_EN +
    # telling the caller to stop, or to prefer the new thing: "stop sending X", "use Y rather
    # than X", "X is ignored", "required as of v3", "from now on", "we changed it"
    r"|stop (?:send|pass|us|provid|includ|set|call)\w*|rather than|in place of|in favou?r of"
    r"|(?:is|are) (?:now )?ignored|(?:is|are) required (?:as of|since|from)"
    r"|from now on|going forward|(?:we|they|it|this) changed|changed (?:it|this|that)"
    r"|\bnow(?=\s*(?:[.;,:!?)]|$))|(?<=\s)now (?:run|open|close|start|end|cost|take|ship|go)\w*"
    # a change that takes effect at once or on a date ("effective immediately", "effective
    # from 1 May", "with immediate effect")
    r"|effective (?:immediately|(?:from|as of|on) )|with immediate effect"
    # a thing taken out of service in other verbs ("has been sunset", "is being phased out",
    # "sunsetted"), and the caller sent on to its successor ("migrate to 'region_code'")
    r"|(?:has been|have been|was|were|is being|are being|is|are) (?:sunset|phased out|superseded"
    r"|renamed|migrated)|sunsett?ed|phased out|migrate (?:to|from)\b",
    # German
    r"nicht mehr|stattdessen|anstatt|anstelle|ab sofort|jetzt erforderlich|wird jetzt|ersetzt durch"
    r"|veraltet|entfernt|\bstatt\b"
    r"|(?:verlangt|erfordert|braucht|benötigt|akzeptiert) (?:\S+ )?jetzt"
    r"|\bjetzt (?:nur|erforderlich|optional|pflicht)|nur noch|\bkein\w* (?:\S+ ){0,3}mehr\b"
    r"|abgeschafft|wurden? eingestellt|ab jetzt|künftig|neuerdings|mit sofortiger wirkung"
    r"|umbenannt|wird ersetzt|ersetzt \S+ (?:\S+ )?(?:durch|mit)\b"
    # a service the speaker ended ("den Lieferdienst haben wir eingestellt"; not a setting,
    # "auf 20 Grad eingestellt")
    r"|\b(?:haben|hat|habe) (?:wir |sie |es )?(?:(?!auf\b)[^\s\d]+ ){0,3}eingestellt\b"
    r"|seit (?:dem )?" + _MONTHS_DE,
    # French
    r"ne \S+ plus|n'\S+ plus|plus accept|désormais|dorénavant|à la place|au lieu de|remplacé par"
    r"|obsolète|supprimé|exige maintenant|requiert désormais|au profit de|abandonné"
    r"|(?:est|sont) (?:maintenant|désormais) (?:facultati|optionnel|obligatoire|requis)"
    r"|avec effet immédiat|à partir de maintenant|nous avons arrêté|renommée? (?:en|à)\b"
    r"|depuis (?:le )?(?:\d+(?:er)? )?" + _MONTHS_FR,
    # Spanish / Portuguese / Italian
    r"ya no|en su lugar|en lugar de|ahora requiere|ahora se requiere|reemplazad[oa] por"
    r"|obsolet[oa]|eliminad[oa]|já não|não \S+ mais|em vez de|agora exige|substituíd[oa] por"
    r"|sustituid[oa] por|ha sido (?:retirad|suprimid|descontinuad)|dej[óa] de|ha dejado de"
    r"|ahora (?:es|se exige|exige|necesita|hay que)|desde ahora|a partir de ahora|descontinuad[oa]"
    r"|foi (?:removid|retirad|desativad)|deixou de|agora (?:é|são|precisa)|no lugar de"
    # "now only" ("agora só aceitamos", "ahora solo", "ora solo")
    r"|\bagora só\b|\bahora s[oó]lo\b|\b(?:ora|adesso) solo\b"
    r"|a partir de agora|de agora em diante|daqui (?:para|pra) frente|deixamos de|paramos de"
    r"|com efeito imediato|con efecto inmediato|con effetto immediato|da ora in (?:poi|avanti)"
    r"|desde (?:el |o )?(?:\d+ de )?"
    + _MONTHS_ES_PT
    + r"|non più|non (?:\S+ ){1,3}più\b(?! (?:di|del|dei|della|delle|che)\b)"
    r"|invece di|al posto di|ora richiede|sostituit[oa] da|deprecat[oa]"
    r"|rimoss[oa]|dismess[oa]|ora (?:è|sono) (?:obbligatori|facoltativ|richiest)|d'ora in poi"
    # renamed: "pasó a llamarse", "passou a se chamar", "renombrado", "rinominato"
    r"|pas(?:ó|a|aron|an) a (?:llamarse|denominarse)|passou a (?:se )?chamar|renombrad[oa]"
    r"|renomead[oa]|rinominat[oa]|ha cambiado de nombre|cambió de nombre",
    # Dutch / Scandinavian / Polish / Czech
    r"niet meer|in plaats van|vervangen door|voortaan|inte längre|i stället|ikke lenger|i stedet"
    r"|niet langer|\bniet (?:\S+ ){1,2}langer\b"
    r"|\balleen nog\b"
    r"|ikke længere|nie jest już|już nie|zamiast|zastąpion|již není|už není|místo toho|nahrazen"
    r"|verwijderd|vervallen|\bis nu\b|\bzijn nu\b|nu verplicht|borttagen|ersatt av|usunięt|wycofan"
    r"|teraz wymaga|odstraněn|zrušen|od (?:teraz|dzisiaj|dziś)\b|ze skutkiem natychmiastowym"
    r"|przestaliśmy|przestał[aoy]?\b|\bnie \S+ już\b"
    # a change dated by its month ("od maja": since May; not a season, "od maja do września")
    r"|\bod (?:stycznia|lutego|marca|kwietnia|maja|czerwca|lipca|sierpnia|września"
    r"|października|listopada|grudnia)\b(?!\s+do\b)"
    # a service the speaker stopped ("det har vi slutat med", "vi har sluttet med det",
    # "det er vi holdt op med")
    r"|\b(?:har|hade|vi|har vi) (?:\S+ )?(?:slutat|sluttet|stoppet|holdt op)\b"
    r"|\bholdt op med\b|\bslutat med\b|\bsluttet med\b"
    # a passive in the present ("ersätts av", "erstattes af"), a dated start ("från och med
    # version 4", "fra og med"), and a rename ("bytt namn till", "hernoemd naar")
    r"|ersätts (?:av|med)|erstattes (?:av|af|med)|från och med|fra og med|(?:har )?bytt namn"
    r"|hernoemd|används inte|tagits bort|fjernet|zmieniono nazwę|przemianowan"
    # Czech and Slovak negate the verb itself ("již nepoužívá", "už neplatí"): the adverb
    # "no longer" before or after a verb that opens with "ne"
    r"|\b(?:již|už) ne\w+|\bne\w+ (?:již|už)\b|místo (?:něj|ní|nich)\b"
    # Finnish: "ei enää" and its persons, "we stopped", "was removed", "instead of", "from now
    # on", "with immediate effect"
    r"|\b(?:ei|en|et|emme|ette|eivät) (?:\S+ )?enää\b|lopetimme|lopetettiin|on lopetettu"
    r"|poistettiin|on poistettu|korvattu|\bsijaan\b|tästä lähtien|jatkossa|välittömästi"
    # "no … any more" around its noun ("geen contant geld meer", "ingen kontanter længere")
    r"|\bgeen (?:\S+ ){0,3}meer\b(?! dan)|\binge[nt]? (?:\S+ ){0,3}(?:længere|lenger|längre)\b"
    r"|sinds (?:\d+ )?" + _MONTHS_NL,
    # Romanian ("nu mai este acceptat", "înlocuit cu", "a fost eliminat", "de acum înainte"),
    # Hungarian ("már nem", "helyette", "megszűnt", "mostantól") and Indonesian / Malay
    # ("tidak lagi", "dihentikan", "diganti dengan", "sebagai gantinya", "mulai sekarang")
    r"\bnu mai\b(?! (?:mult|puțin)\b)|\bîn loc(?:ul)? (?:de|lui)\b|\bînlocuit\w* (?:cu|de)\b"
    r"|\bredenumit\w*"
    r"|\ba fost (?:eliminat|înlocuit|retras|suspendat|oprit|anulat)\w*|\bde acum (?:înainte|încolo)"
    r"|\bmár nem\b|\bhelyett(?:e|ük)?\b|\bmegszűnt\w*|\bmegszüntet\w*|\bmostantól\b"
    r"|\btöbbé nem\b|\bnem (?:\S+ ){1,2}többé\b|\bkivezet\w*|\bátnevez\w*|\blecserél\w*"
    r"|\bt(?:idak|ak) (?:\S+ ){0,2}lagi\b|\bsudah tidak\b|\bdihentikan\b"
    r"|\bdiganti (?:dengan|oleh)\b|\bsebagai gantinya\b|\bmulai sekarang\b|\bdihapus\b"
    r"|\bditiadakan\b",
    # Russian / Ukrainian / Greek / Turkish
    r"больше не|вместо|заменен|теперь требует|устарел|більше не|замість|δεν \S+ πλέον|πλέον δεν"
    r"|αντί για|αντικαταστάθηκε|artık|yerine|kaldırıldı|теперь|удал[её]н|отмен[её]н|упраздн"
    r"|видалено|скасовано|тепер|καταργήθηκε|αφαιρέθηκε",
    # Japanese / Chinese / Korean / Arabic / Hebrew / Hindi
    r"廃止|非推奨|代わりに|不再|已弃用|改为|取代|더 이상|대신|폐지|لم يعد|بدلا من|بدلاً من"
    r"|לא עוד|כבר לא|במקום|अब नहीं|के बजाय|停用|改用|已移除|已删除|废弃|弃用|现在需要"
    r"|なくなりました|削除され|제거되었|중단되었|사용 중단|더는"
    # a dated change ("4月から…になりました": from April it became …)
    r"|(?:から|より)[^。.]{0,40}(?:になりました|となりました|に変更|変わりました)",
    _SINCE_SEASON,
    _SWITCHED,
)
#: any of them, as one pattern (an error family of changed requirements reads these too)
REVERSAL_PATTERN = "|".join(f"(?:{m})" for m in _MARKERS)
_MARKER = re.compile(REVERSAL_PATTERN, re.IGNORECASE)


@built_once
def _marker_found() -> re.Pattern[str]:
    """``_MARKER`` regrouped to tell whether a text holds a marker, several times faster
    (``digest.pattern_start.for_existence``: it finds a marker exactly where ``_MARKER``
    does, but not always the same one); compiled on first use, not on import."""
    return for_existence(_MARKER)


#: words too common (or too much the rules' own template) to say what a reversal is about
_COMMON = frozenset(
    """the and for with that this from into onto over your you are was were has have had not
    any more longer now use used uses using instead send sent call called calling calls tool
    tools error errors failed fails fail failure with without when before after every must
    should need needs required requires require accept accepts accepted longer anymore is be
    been being it its it's of on in to a an or as at by no do does did can cannot will would
    observed check make sure first again same api request requests value values field fields
    parameter parameters argument arguments header headers please version""".split()  # noqa: SIM905
)
_WORD = re.compile(r"[^\W\d_][\w-]{2,}", re.UNICODE)
#: a short name in quotes: a parameter or a field an error names ('q', "sku")
_NAMED = re.compile(r"""['"]([\w.-]{1,40})['"]""")
#: a name in backticks (a tool's label): the subject both texts share, not what changed
_LABEL = re.compile(r"`[^`\n]{1,80}`")


def _plain(word: str) -> str:
    """A word without its plural ending ("bodies" is "body", "headers" "header"): a reversal
    speaks of a thing in the number its sentence needs."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3 and "_" not in word:
        return word[:-1]
    return word


#: one thing a masked id names ("Loan ‹id›", "order #‹id›"): a sentence about it speaks of
#: that one loan's or order's state ("Loan ‹id› is no longer renewable"), not of what the
#: tool asks for, so the word naming the instance is not what a reversal is about
_INSTANCE = re.compile(r"[^\W\d_][\w-]*\s*#?\s*[‹<]id[›>]")


def _words(text: str) -> set[str]:
    text = _INSTANCE.sub(" ", _LABEL.sub(" ", text))
    folded = unicodedata.normalize("NFKC", text).casefold()
    # a name the text quotes is what it is about, however short ('q', "id")
    words: set[str] = set(_NAMED.findall(folded))
    for word in _WORD.findall(folded):
        # a compound names its parts too ("Authorization-Header", "X-Api-Key")
        words.update(part for part in (word, *word.split("-")) if len(part) >= 3)
    return {_plain(w) for w in words - _COMMON} - _COMMON


def about_words(text: str) -> set[str]:
    """The words ``text`` speaks of, read as ``reversal_terms`` reads a reversal's."""
    return _words(text)


def reversal_sentences(text: str) -> list[str]:
    """The sentences of ``text`` that state a reversal (the sentence around each marker)."""
    return list(_reversal_sentences(text))


#: texts whose reversal sentences a process remembers, and their bytes (``digest.bounded``):
#: reconciliation reads one owner answer's beside each neighbour of its question (in the
#: throughput stream, issue 27: 32 distinct texts in 104 asks per 1,000 events)
SENTENCES_KEPT, SENTENCES_BYTES = 512, 2**18


@memo(SENTENCES_KEPT, SENTENCES_BYTES, digest_keys=True)
def _reversal_sentences(text: str) -> tuple[str, ...]:
    sentences: list[str] = []
    for found in _MARKER.finditer(text):
        start = max(text.rfind(".", 0, found.start()), text.rfind("\n", 0, found.start())) + 1
        end_candidates = [i for i in (text.find(".", found.end()), text.find("\n", found.end()))]
        end = min([i for i in end_candidates if i >= 0], default=len(text))
        sentences.append(text[start:end])
    return tuple(sentences)


def reversal_terms(text: str) -> set[str]:
    """The words a reversal in ``text`` is about (the sentence around each marker), or an
    empty set when the text states no reversal."""
    terms: set[str] = set()
    for sentence in reversal_sentences(text):
        terms |= _words(sentence)
    return terms


#: what a policy speaks of: a check, a permission, a role. A reversal from run text never
#: supersedes a lesson about one (a tool's error may report an API change; whether a refund
#: needs a manager is the owner's to change), and a reversal that claims one is a claim.
_POLICY = re.compile(
    r"approv|authori[sz]|permission|identity|consent|manager|supervisor"
    r"|admin|operator|owner|\brole|staff|kyc|mfa|2fa|two-factor|sign-?off"
    r"|genehmig|freigabe|aprob|autoriz|gerente|responsable"
    r"|approuv|autoris|approva|autorizz|одобр|разреш|审批|批准"
    r"|权限|承認|権限|승인|권한",
    re.IGNORECASE,
)
#: policy words a validation error uses of its own fields ("'phone' is not allowed", "over
#: the limit"): a policy only in a text that names no argument, field or header at all
_WEAK_POLICY = re.compile(
    r"allowed|permitted|verif|limit|threshold|polic|erlaubt|prüf|verific|límite|limite"
    r"|vérif|plafond|verifica|провер|лимит",
    re.IGNORECASE,
)
#: what a tool's own interface speaks of: its arguments, fields, endpoints, formats
_INTERFACE = re.compile(
    r"param|argument|\bfield|header|endpoint|column|attribute|propert|schema|format|\bversion"
    r"|\bv\d|json|\bxml|\bcsv|encoding|\bflag|query|payload|\burl|\bpath|feld|kopf|champ"
    r"|en-tête|campo|encabezado|cabeçalho|intestazione|параметр|поле|заголов|参数|字段|パラメータ"
    r"|フィールド|ヘッダー|매개변수|필드|헤더",
    re.IGNORECASE,
)
_POLICY_CLAUSE = re.compile(r"[,;:.!?\n]\s*")
#: a word that names an interface item: "Authorization header", "approval field", or a word
#: right before a quoted name ("an approved 'template_id'")
_NAME_BEFORE = re.compile(
    r"([\w-]+)\s+(?=(?:param|argument|field|header|column|attribute|propert|flag)\w*\b"
    r"""|['"][\w.-]{1,40}['"])""",
    re.IGNORECASE,
)
#: an HTTP header's name spelled as one ("Authorization", "X-Approval-Token"): in a text that
#: names an interface item it is that header, not a policy (only these spellings: a German
#: noun is capitalised too, and "Genehmigung" stays a policy word)
_HEADER_NAME = re.compile(r"\b(?:Proxy-)?Authori[sz]ation\b|\bX-[A-Za-z][\w-]*")
#: an HTTP status and its phrase ("401 Unauthorized", "‹id› Forbidden"): the API's answer
_STATUS = re.compile(r"(?:\b\d{3}|‹id›)\s+(?:unauthori[sz]ed|forbidden)\b", re.IGNORECASE)


def speaks_of_policy(text: str) -> bool:
    """Does a clause of ``text`` speak of a check, a permission or a role, and not of a
    tool's interface? Names are left out first: quoted names, an HTTP status's phrase, a
    word naming a header, a field or an argument where it does, a capitalised one wherever it
    stands ("send Authorization" beside "the Authorization header"), and an HTTP header's
    name in a text that names an interface item. A validation
    error's own words ("'phone' is not allowed", "over the limit") count only in a text naming
    no interface item."""
    found = [m.group(1) for m in _NAME_BEFORE.finditer(text) if not _INTERFACE.search(m.group(1))]
    names_interface = bool(found or _NAMED.search(text) or _INTERFACE.search(text))
    # ("the parameter 'phone'": the interface's own noun stays, it tells the clause apart)
    unnamed = _NAME_BEFORE.sub(lambda m: m.group(0) if _INTERFACE.search(m.group(1)) else " ", text)
    bare = _NAMED.sub(" ", _LABEL.sub(" ", _STATUS.sub(" ", unnamed)))
    # a name spelled as one (capitals: "Authorization", "X-Api-Key") is that name wherever it
    # stands; a plain word ("approval") only where it names the item
    spelled = sorted({name for name in found if not name.islower()})
    if spelled:
        bare = re.sub(r"\b(?:" + "|".join(map(re.escape, spelled)) + r")\b", " ", bare)
    if names_interface:  # "…: Authorization is no longer accepted" beside a header named
        bare = _HEADER_NAME.sub(" ", bare)
    for clause in _POLICY_CLAUSE.split(bare):
        if _INTERFACE.search(clause):
            continue
        if _POLICY.search(clause) or (not names_interface and _WEAK_POLICY.search(clause)):
            return True
    return False


def about_policy(lesson: str) -> bool:
    """Is a lesson about a policy, a permission or a role (``speaks_of_policy``), read for its
    substance: what its runs observed where it quotes them, not the judge's frame around it
    (a remedy for a refused call speaks of permission whatever the call was)."""
    return speaks_of_policy(_substance(lesson))


def states_reversal(text: str) -> bool:
    return bool(_marker_found().search(text))


#: a quotation marked as observed («…», digest.text.quoted): what the run said, as data
_QUOTED = re.compile(r"«([^»]{1,2000})»")


def _substance(text: str) -> str:
    """What a lesson reports of the world: its observed quotations when it has any (a lesson
    in the offline judge's own words quotes the error; its advice is a fixed template whose
    words, "instead of calling it again", state no reversal), else all of it."""
    quotes = _QUOTED.findall(text)
    return "\n".join(quotes) if quotes else text


#: lesson texts whose ``signals_change`` a process remembers, and their bytes
#: (``digest.bounded``): reconciliation asks it of one candidate beside each of its neighbours,
#: soon after each other. Keyed by a digest of the text (about 200 bytes an entry): in the
#: throughput stream (issue 27) 75% of asks hit with 0.125 MiB as with 2 MiB
CHANGE_KEPT, CHANGE_BYTES = 1024, 2**18


@memo(CHANGE_KEPT, CHANGE_BYTES, digest_keys=True)
def signals_change(text: str) -> bool:
    """Does a lesson's substance (its observed quotations, else its text) say that something
    was removed, replaced or inverted? Such a candidate may contradict a lesson of its subject:
    reconciliation asks the judge (``digest.reflect.reconcile.for_the_judge``)."""
    return states_reversal(_substance(text))


#: an answer that opens by saying yes, or no, in the languages the screen reads
_YES = re.compile(
    r"^\W*(?:yes|yeah|yep|sure|of course|sí|si|oui|ja|jawohl|sim|sì|да|tak|ano|evet|kyllä"
    r"|igen|はい|是的|是|네|예)(?=\W|$)"
    # Indonesian "Ya," (a Spanish "Ya no" is not a yes: only before a comma, stop or "!")
    r"|^\W*ya(?=\s*[,.!])",
    re.IGNORECASE,
)
_NO = re.compile(
    # "Unfortunately not", "Leider nein": a regret before the no is still a no
    r"^\W*(?:(?:unfortunately|sadly|i'?m afraid|afraid|leider|malheureusement|lamentablemente"
    r"|desafortunadamente|infelizmente|purtroppo|helaas|niestety)\W+)?"
    r"(?:no|nope|not|never|non|nein|nee|nei|não|nao|нет|nie|ne|hayır|nej|ei|emme|eivät|nem"
    r"|tidak|bukan|いいえ|不是|不"
    r"|아니요|아니오)(?=\W|$)",
    re.IGNORECASE,
)


def answer_polarity(text: str) -> int:
    """+1 for an answer that opens with a yes, -1 with a no, 0 for neither."""
    if _YES.match(text):
        return 1
    if _NO.match(text):
        return -1
    return 0


def answers_reversed(new: str, old: str) -> bool:
    """Does a new answer to a question reverse the old one: a yes where there was a no (or
    the other way round), or a statement that what the old answer says was removed, replaced
    or inverted?"""
    polarity = answer_polarity(new) * answer_polarity(old)
    if polarity < 0:
        return True
    return not extends(new, old) and reverses(new, old)


#: words that add to what was said ("…, and since March from Bergen too")
_ADDS = re.compile(
    r"\b(?:too|also|as well|in addition|additionally|auch|ebenfalls|también|además|aussi|"
    r"également|anche|inoltre|também|ook|också|også|myös)\b",
    re.IGNORECASE,
)


def extends(new: str, old: str) -> bool:
    """Does a new answer keep everything the old one said and add to it ("Yes, from Oslo" →
    "Yes, from Oslo, and since March from Bergen too")? Then it updates the old answer; a
    dated change in it ("since March") is what was added, not a reversal."""
    kept = _words(_substance(old))
    return bool(kept) and kept <= _words(_substance(new)) and bool(_ADDS.search(new))


def reverses(new: str, old: str) -> bool:
    """Does ``new`` state a reversal about something ``old`` speaks of (a requirement the old
    text asks for that the new says was removed, replaced or inverted)? Both are read for
    their substance: observed quotations where a lesson has them."""
    terms = reversal_terms(_substance(new))
    return bool(terms and terms & _words(_substance(old)))


def reverses_interface(new: str, old: str) -> bool:
    """``reverses``, for lessons drawn from runs: only what a tool's own interface asks for
    (an argument, a field, an endpoint, a format) is superseded. A lesson about a policy, a
    permission or a role is never reversed by run text, and a reversal that speaks of one is a
    claim to hold, not a change to learn."""
    if speaks_of_policy(_substance(old)) or speaks_of_policy(_substance(new)):
        return False
    return reverses(new, old) and not names_apart(new, old)


#: a long flag a command line names ("--replicas"): an item of the tool's interface
_FLAG = re.compile(r"(?<![\w-])--([a-z][\w-]{0,40})", re.IGNORECASE)


def _names(text: str) -> set[str]:
    """The interface items ``text`` names as names: quoted ('purpose_code', "image") or spelled
    as a command line's long flag (--replicas)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return set(_NAMED.findall(folded)) | {m.group(1) for m in _FLAG.finditer(folded)}


def names_apart(new: str, old: str) -> bool:
    """Does a reversal name its items (a quoted field, a flag) while the old text names only
    others? "'purpose_code' is no longer optional for international transfers" reverses
    nothing of "'reference' is required for international transfers": the words they share are
    the situation both errors arise in, the items are two. Texts that name no item by name
    ("units is not supported anymore") are read by their words (``reverses``), and a reversal
    that speaks of the old item in plain words ("free-text bodies" of 'body') is about it."""
    sentences = reversal_sentences(_substance(new))
    said = set().union(*map(_names, sentences))
    known = _names(_substance(old))
    if not (said and known) or said & known:
        return False
    # the old item spoken of in plain words ("free-text bodies are not allowed; messages must
    # now reference an approved 'template_id'" beside "'body' is required") is reversed
    spoken = set().union(*map(_words, sentences))
    return not {_plain(name) for name in known} & spoken
