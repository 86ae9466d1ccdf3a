"""The rules that judge only what a run reported (its task, error, output, summary): a tool
has no business giving the agent standing orders ("gives a standing order") or granting
exceptions ("asserts a policy change"), even in words a lesson may use."""

from __future__ import annotations

from digest.reflect.rules.vocabulary import HELD, NEGATED_OTHER, WITHOUT_OTHER, Rule

#: a standing order, in the languages the lexicon covers: run text reports what happened once
STANDING = (
    r"\b(?:from now on|going forward|henceforth|from this point (?:on|forward)|for all future|"
    r"a partir de ahora|de ahora en adelante|desde ahora|a partir de agora|de agora em diante|"
    r"daqui (?:em|para) (?:diante|frente)|d[eé]sormais|dor[eé]navant|[aà] partir de maintenant|"
    r"ab sofort|von nun an|ab jetzt|k[uü]nftig|d'ora in (?:poi|avanti)|da ora in poi|vanaf nu|"
    r"van nu af aan|od teraz|odt[aą]d|bundan sonra|t[uừ] nay|mulai sekarang|next time|"
    r"a partir de hoy|[aà] partir d'aujourd'hui|ab heute|da oggi|a partir de hoje|vanaf vandaag|"
    r"od dzisiaj|bug[uü]nden itibaren)\b(?!,? (?:your|all|every|each|the|this)? ?(?:password|"
    r"session|token|account|subscription|plan|trial|licen[cs]e|requests?|calls?|api|endpoint|"
    r"responses?|clients?|headers?)s?\b)"
    r"|с сегодняшнего дня|从今天起|從今天起|本日より|今日から|これ以降|오늘부터|이제부터"
    r"|次回は|下次|다음부터"
    r"|отныне|с этого момента|впредь|відтепер|з цього моменту|今後|これからは|以後|"
    r"从现在(?:开始|起)|從現在(?:開始|起)|从今(?:以后|往后)|今后|지금부터|앞으로는|من الآن|अब से"
)
#: in the order the screen tries them
RUN_TEXT_RULES: tuple[Rule, ...] = (
    (
        "asserts a policy change",
        rf"(?:^|[,;:.(])(?:(?!{NEGATED_OTHER})[^,;:.!?\n(。、]){{0,80}}?{WITHOUT_OTHER}",
    ),
    ("gives a standing order", STANDING),
    (
        "gives a standing order",
        r"\b(?:retry|use|apply|give|send|refund|approve|grant|skip|add|include|charge|copy|"
        r"forward|cc|bcc|offer|ship|accept|allow|reset|unlock|change|issue|verify|activate|"
        r"disclose|share|waive|credit)\b[^.!?\n]{0,80}?\b(?:for|to|on|in) (?:every|each|"
        r"all|any) (?:\w+ )?(?:customers?|orders?|callers?|clients?|users?|replies|reply|"
        r"requests?|tickets?|messages?|e-?mails?|accounts?)\b",
    ),
    (
        "asserts a policy change",
        rf"(?:^|[,;:(]|\b(?:but|except|whose|which|and)\b)(?:(?!{HELD}\b)[^,;:.!?\n(]){{0,80}}?"
        r"\bwithout (?:a |an |the |any |prior )?(?:manager'?s? |supervisor'?s? )?(?:approval|"
        r"authori[sz]ation|verification|sign-?off|review|identity check|id check|receipt|manager|"
        r"supervisor|call-?back|verification call|second approval|dual approval)\b",
    ),
    (
        "asserts a policy change",
        r"\b(?:polic(?:y|ies)|owner|management|finance|head office|admin(?:istrator)?|security "
        r"team|it|support)(?: (?:update|change|notice|note|memo|decision))?\s*:\s*(?:[\w'-]+\s+)"
        r"{0,4}?(?:always|never|from now on|no longer|you (?:may|can)|agents? (?:may|can)|feel fre"
        r"e|"
        r"(?:is|are) (?:now )?(?:allowed|permitted))\b"
        r"|\b(?:exception (?:granted|approved|made)|(?:granted|approved) an exception)\b",
    ),
)
