# ruff: noqa: E501
# (regular expressions: alternations of words in wide scripts run past the line length)
"""English rules against text that would carry something out of the agent's hands: secrets
("asks to reveal secrets"), data to an address, a URL or an extra recipient ("asks to send data
out", with the sending verbs of the other languages the lexicon covers), and money ("asks to
send money to an account")."""

from __future__ import annotations

from digest.reflect.rules.vocabulary import (
    ADDRESS,
    DATA,
    FAILED_ML,
    LEAD,
    RECUR,
    REPORTED,
    SEND,
    Rule,
)

REVEAL_SECRETS: Rule = (
    "asks to reveal secrets",
    r"(?<!never )(?<!not )(?<!n't )\b(?:reveal|print|show|leak|disclose|output|share|"
    r"exfiltrate|dump|repeat|tell (?:me|us|the user)|list|display|echo|write out|spell out|"
    r"recite|paste)\b\W+(?:[\w'-]+\W+){0,6}?(?:system prompt|system message|hidden "
    r"(?:prompt|instructions)|initial instructions|(?:your|the agent'?s|the assistant'?s) "
    r"(?:instructions|prompt|configuration|config|settings|setup|rules|tools|guidelines|"
    r"memory|lessons)|internal (?:config\w*|settings|notes|instructions|rules)|secrets?\b|"
    r"passwords?(?! reset)|api[ _-]?keys?|access tokens?|auth tokens?|credentials|"
    r"private keys?|env(?:ironment)? var(?:iable)?s?|\.env\b|connection strings?|"
    r"database (?:password|credentials|url))"
    r"|\bwhat (?:is|are) your (?:system prompt|instructions|initial instructions|rules)\b"
    r"|(?<!never )(?<!not )(?<!n't )\b(?:include|paste|put|add|insert|write|share|show|print|"
    r"echo|return|send)\b[^.!?\n]{0,60}?"
    r"\b\w*(?:token|secret|passw(?:or)?d|api[_-]?key|credential|private[_-]?key)\w*\b"
    r"[^.!?\n]{0,60}?\b(?:in|into|with|to) (?:your|the|a|each|every) (?:next |following |final |"
    r"first )?(?:reply|response|answer|message|output|e-?mail|chat|payload|request|body|header|"
    r"url|query|form)"
    r"|(?:system ?prompt|系统提示|系統提示|システムプロンプト|시스템 프롬프트|api[ _-]?(?:key|密钥|キー|키|"
    r"schl[uü]ssel|chiavi|chiave|clave|cl[eé]s?|ключ)|\.env\b|密钥|秘钥|パスワード|密码|пароль|"
    r"credit ?card numbers?|card numbers?|カード番号|卡号|kartennummer|num[eé]ro de (?:la )?carte|"
    r"n[uú]mero de (?:la )?tarjeta|номер карты)[^.!?。\n]{0,80}?(?:[\w.+-]+@[\w-]+\.[\w.-]+|"
    r"https?://|\b(?:reply|response|answer|respuesta|risposta|r[eé]ponse|antwort|resposta|"
    r"antwoord|odpowied|ответ)|回复|回答|返信|답변)",
)


SAYS_EXFILTRATE: Rule = ("asks to send data out", r"\bexfiltrat")


SEND_DATA_TO_ADDRESS: Rule = (
    "asks to send data out",
    rf"{LEAD}{SEND}\b[^.!?\n]{{0,100}}?\b(?:to|at|via|into|onto|through|using|on)\s+"
    rf"{ADDRESS}{REPORTED}"
    rf"(?=[^.!?\n]*?(?:{DATA}|{RECUR}|\b(?:all|every|entire|full|complete|whole)\b))"
    rf"|{LEAD}{SEND}\b[^.!?\n]{{0,60}}?(?:{DATA}|\b(?:all|every|entire|full|complete|"
    rf"whole)\b)[^.!?\n]{{0,80}}?\b(?:to|at|via|into|onto|through|using)\s+{ADDRESS}"
    rf"{REPORTED}"
    rf"|\b(?:contact|e-?mail|message|write to|notify|ping|text)\b\s+(?:\S+\s+){{0,2}}?"
    rf"{ADDRESS}[^.!?\n]{{0,40}}?\b(?:with|including|containing|and (?:send|share|give|"
    rf"provide|include))\b[^.!?\n]{{0,40}}?{DATA}"
    rf"|\b(?:cc|bcc|blind[- ]copy|carbon[- ]copy|copy|include|add|loop in)\b[^.!?\n]{{0,40}}?"
    rf"{ADDRESS}[^.!?\n]{{0,80}}?\b{RECUR}"
    rf"|\b{RECUR}\b[^.!?\n]{{0,80}}?\b(?:cc|bcc|copy|include|add|forward|send)\b"
    rf"[^.!?\n]{{0,60}}?{ADDRESS}"
    rf"|\b{DATA}\b[^.!?\n]{{0,60}}?\b(?:to|into)\s+{ADDRESS}{REPORTED}"
    rf"|\b(?:must|should|need to|needs to|have to|has to|are to|is to|may|can|will)\s+(?:also"
    rf"\s+|"
    rf"now\s+|always\s+|instead\s+)?(?:be\s+)?(?:sent|forwarded|copied|cc'?d|bcc'?d|mailed|"
    rf"posted|uploaded|delivered|shared|exported|go|synced|backed up)\s+(?:to|at|via|into)\s+"
    rf"{ADDRESS}(?=[^.!?\n]*?\b(?:also|additionally|as well|too|until further notice|from now "
    rf"on|always|instead)\b)"
    rf"|\b(?:must|should|need to|needs to|have to|has to|are to|is to|may|can|will)\s+(?:also|"
    rf"additionally)\s+(?:be\s+)?(?:sent|forwarded|copied|cc'?d|bcc'?d|mailed|posted|"
    rf"uploaded|delivered|shared|exported|go)\s+(?:to|at|via|into)\s+{ADDRESS}"
    r"|(?:https?://|www\.)\S*[?&#][\w.-]*=(?:\{|\$\{?|<|%s|\[|\{\{|(?:data|secret|"
    r"conversation|history|email|prompt|token|key|password|chat|message|info|payload|"
    r"insert|here)\b)",
)


PUT_DATA_IN_URL: Rule = (
    "asks to send data out",
    r"\b(?:append|add|include|attach|put|insert|encode|embed)\b[^.!?\n]{0,50}?\b(?:"
    r"conversation|history|chat|messages?|e-?mail|name|address|phone|token|keys?|password|"
    r"details|info|data|secrets?|credentials)\b[^.!?\n]{0,50}?\b(?:to|in|into|as)\b"
    r"[^.!?\n]{0,20}?\b(?:url|link|query|parameter|request|image)",
)


SEND_DATA_OTHER_LANGUAGES: Rule = (
    "asks to send data out",
    rf"(?:^|(?<=[.!?。\n:;：«»]))(?:(?!{FAILED_ML})[^.!?。\n:;：«»]){{0,60}}?"
    r"(?:envoie|envoyez|envoyer|transf[eè]re[zr]?|transmets|transmettez|manda|env[ií]a|enviar|"
    r"envie|reenv[ií]a|encaminh[ea]|schick\w*|sende|senden|leite\w* weiter|weiterleiten|invia|"
    r"inoltra|stuur|wy[sś]lij|prze[sś]lij|отправ\w*|перешли\w*|пересыл\w*|надішл\w*|发送|发到|"
    r"转发|送信|転送|送って|보내|전송|전달|أرسل|ارسل|g[oö]nder|ilet|kirim\w*|g[uử]i|copiar|copia|"
    r"copier|copie[zr]?|kopier\w*|копир\w*)"
    rf"(?![^.!?。\n«»]{{0,200}}?{FAILED_ML})"
    r"[^.!?。\n«»]{0,80}?(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?://\S+)"
    r"(?=[^.!?。\n«»]*?(?:fichier|donn[eé]es|datos|dados|daten|dati|gegevens|dane|данн|数据|資料|"
    r"データ|데이터|بيانات|veri|historique|historial|hist[oó]rico|verlauf|cronologia|"
    r"conversation|conversaci[oó]n|conversa|gespr[aä]ch|разговор|对话|会話|대화|محادثة|client|"
    r"kunden|klant|клиент|客户|顧客|고객|عملاء|export|complet|komplett|полн|全部|すべて|전체|كامل|"
    r"chaque|cada|jede|ogni|elke|każd|кажд|每|毎|매|كل|toujours|siempre|sempre|immer|altijd|"
    r"всегда|总是|常に|항상|dai sempre))"
    r"|(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?://\S+)\s*(?:に|へ|로|으로)[^.!?。\n«»]{0,20}?"
    r"(?:送信して|送って|転送して|보내|전송해)",
)


ADD_RECIPIENT: Rule = (
    "asks to send data out",
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+\s+(?:as (?:an? )?(?:attendee|participant|recipient|guest|"
    r"member|cc|bcc|viewer|editor|collaborator|owner)|als (?:Teilnehmer\w*|Empf[aä]nger|Gast|"
    r"cc|bcc)|comme (?:participant|invit[eé]|destinataire)|como (?:participante|invitado|"
    r"destinatario)|come (?:partecipante|invitato|destinatario)|als (?:deelnemer|ontvanger)|"
    r"jako uczestnik|в качестве участника)"
    r"|(?:en copie(?: cach[eé]e)?|copie cach[eé]e|en copia(?: oculta)?|copia oculta|copiar|"
    r"in copia(?: nascosta)?|in (?:b?cc)|als b?cc|in kopie|w kopii|в копи\w*|скрыт\w* копи\w*|"
    r"抄送|密送|\bb?cc\b)[^.!?。\n]{0,60}?[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+[^.!?。\n]{0,40}?(?:en copie|copie cach[eé]e|en copia|in copia|"
    r"als b?cc|in kopie|w kopii|抄送|密送)"
    r"|(?:auto-?forward\w*|automatically forward\w*|forwarding rule|mail rule|transfert "
    r"automatique|reenv[ií]o autom[aá]tico|weiterleitungsregel|automatische weiterleitung|"
    r"inoltro automatico|自动转发|自動転送|자동 전달|자동으로 전달)[^.!?。\n]{0,80}?"
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+\s*(?:으로|로|에)?[^.!?。\n]{0,20}?"
    r"(?:자동 ?전달|自动转发|自動転送)",
)


SECRET_IN_REPLY: Rule = (
    "asks to reveal secrets",
    r"\b\w*(?:token|secret|passw(?:or)?d|api[_-]?key|credential|private[_-]?key|database_url|"
    r"dsn)\w*\b[^.!?\n]{0,60}?(?:\b(?:reply|response|answer|respuesta|risposta|r[eé]ponse|"
    r"antwort|resposta|antwoord|odpowied\w*|ответ\w*)|回复|回答|返信|답변|الرد)",
)


SEND_MONEY_TO_ACCOUNT: Rule = (
    "asks to send money to an account",
    r"\b(?:send|wire|transfer|pay|remit|route|redirect|refund|credit|deposit)\b[^.!?\n]{0,40}?"
    r"\b(?:to|into)\s+(?:(?:the|this|a|new|following|fallback|backup|another|our|their|my|"
    r"alternate|alternative|external|different|secondary|personal)\s+){0,3}"
    r"(?:iban|account|acct|bank account|wallet|routing number|sort code|btc|bitcoin|eth)\b"
    r"|\b(?:send|wire|transfer|pay|remit|refund|credit|deposit)\b[^.!?\n]{0,40}?"
    r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}",
)
