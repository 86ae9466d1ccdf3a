"""The phrases that say a requirement was removed, replaced or inverted, by language
(``digest.reversal`` reads text with them): "no longer", "deprecated in favour of", "ab sofort
nicht mehr", "ya no", a change dated by a month or a season, a switch stated as done.

Tables only; what a reversal is about and what it reverses are ``digest.reversal``'s.
"""

from __future__ import annotations

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
_MONTHS_IT = (
    r"(?:gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre"
    r"|novembre|dicembre)"
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
    r"|this (?:week|month|year|season|term))\b"
    # …or by a change to the place itself ("since the renovation", "since we moved")
    r"|since (?:the|our) (?:\w+ )?(?:renovation|refurbishment|remodel|relaunch|rebrand|reopening"
    r"|takeover|merger|move)\b|since we (?:moved|reopened|renovated|relaunched)\b"
    r"|seit (?:dem |diesem |letztem |letzten |vergangenem )?(?:herbst|frühling|frühjahr|sommer"
    r"|winter|monat|jahr|jahresbeginn|jahresanfang|letzter woche|letztem monat|diesem jahr)\b"
    r"|depuis (?:l'|le |la |cet |cette |ce )(?:automne|printemps|été|hiver|mois dernier"
    r"|année|an dernier|semaine dernière|début de l'année)"
    r"|desde (?:el |este |esta |la |o |a |este )?(?:otoño|primavera|verano|invierno"
    r"|mes pasado|año pasado|outono|verão|inverno|mês passado|ano passado|início do ano"
    r"|principios de año)"
    # "since this (school) year / season / term": "desde este curso", "desde esta temporada"
    r"|desde (?:este|esta) (?:curso|año|temporada|trimestre|semestre|ano|mês|mes)\b"
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

#: a service the speaker suspended ("il servizio in giornata l'abbiamo sospeso", "hemos
#: suspendido las entregas", "wir haben den Abholdienst ausgesetzt"), as English says "we
#: suspended": not a state of the asker's ("your account is suspended")
_SUSPENDED = (
    r"\b(?:l'|lo |la |li |le )?(?:abbiamo|hanno) (?:\S+ ){0,2}sospes[oaie]\b"
    r"|\b(?:lo |la |los |las )?(?:hemos|han) (?:\S+ ){0,2}suspendido\b|\bsuspendemos\b"
    r"|\b(?:nous avons|on a|nous l'avons|on l'a) (?:\S+ ){0,2}suspendu"
    r"|\b(?:haben|hat) (?:wir |sie )?(?:\S+ ){0,3}ausgesetzt\b"
    r"|\b(?:hebben|heeft) (?:we |wij )?(?:\S+ ){0,3}opgeschort\b"
)

#: phrases that say a requirement was removed, replaced or inverted, by language
MARKERS = (
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
    # "not any more" said alone ("Plus maintenant : …", "(Non,) plus depuis mars"), not a
    # comparison ("plus maintenant que jamais")
    r"|\bplus maintenant\b(?! que)|\bplus depuis\b"
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
    # a change dated by its month ("da aprile", "dal 1° luglio"; not a season's span, "da
    # aprile a ottobre")
    r"|\b(?:da|dal|a partire da|a partire dal) (?:\d+°? )?" + _MONTHS_IT + r"\b"
    r"(?!\s+(?:a|al|fino a|fino al)\s+(?:\d+°? )?" + _MONTHS_IT + r")"
    r"|rimoss[oa]|dismess[oa]|ora (?:è|sono) (?:obbligatori|facoltativ|richiest)|d'ora in poi"
    # renamed: "pasó a llamarse", "passou a se chamar", "renombrado", "rinominato"
    r"|pas(?:ó|a|aron|an) a (?:llamarse|denominarse)|passou a (?:se )?chamar|renombrad[oa]"
    r"|renomead[oa]|rinominat[oa]|ha cambiado de nombre|cambió de nombre",
    # Dutch / Scandinavian / Polish / Czech
    r"niet meer|in plaats van|vervangen door|voortaan|inte längre(?! (?:än|tid)\b)|i stället"
    r"|ikke lenger(?! enn\b)|i stedet"
    r"|niet langer|\bniet (?:\S+ ){1,2}langer\b"
    # the verb between ("tager vi ikke imod længere", "tar vi inte emot längre"; not a
    # comparison, "ikke længere end 5 km"), and "numera" ("nowadays": what held before does not)
    r"|\bikke (?!meget |mye )(?:\S+ ){1,2}(?:længere|lenger)\b(?! (?:end|enn)\b)"
    r"|\binte (?!mycket )(?:\S+ ){1,2}längre\b(?! (?:än|tid)\b)|\bnumera\b"
    r"|\balleen nog\b"
    r"|ikke længere(?! end\b)|nie jest już|już nie|zamiast|zastąpion|již není|už není"
    r"|místo toho|nahrazen"
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
    # a dated change ("4月から…になりました": from April it became …), a revision that
    # states the new rule ("7月1日の改定により…": by the 1 July revision …), "from now on"
    r"|(?:から|より)[^。.]{0,40}(?:になりました|となりました|に変更|変わりました)"
    r"|改定により|改定後は|改正により|変更により|今後は|以降は",
    _SINCE_SEASON,
    _SWITCHED,
    _SUSPENDED,
)
