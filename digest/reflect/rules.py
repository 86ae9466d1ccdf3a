# ruff: noqa: E501
# (regular expressions: alternations of words in wide scripts run past the line length)
"""The English rules of the injection screen (``digest.reflect.screen``), as regular
expressions over the views of a text (``digest.reflect.views``). Other languages are in
``digest.reflect.lexicon``.

``PATTERNS`` judge any untrusted text, a lesson's included: what it would make the agent do.
``RUN_TEXT_PATTERNS`` judge only what a run reported (its task, error, output, summary): a tool
has no business giving the agent standing orders, granting exceptions or naming tools to call.
"""

from __future__ import annotations

import re

_I = re.I | re.S

#: an address data could be sent to: e-mail, URL, bare www host, IPv4 with a port or path
ADDRESS = (
    r"(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?:https?|ftp|wss?)://\S+|www\.[\w-]+\.\S+"
    r"|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+|/\S*)|\+\d{1,3}[\d ()-]{6,}\d"
    r"|\b[\w-]+(?:\.[\w-]+)*\.(?:example|com|net|org|io|co|ru|cn|xyz|info|biz|app|dev|site|"
    r"online|top|me|tk|ml|pw|cc|ws|su|de|fr|uk|us|eu|ly|sh|link|click|zip)\b(?:/\S*)?)"
)
#: an address without the bare-host form: for a lesson's own words, where "smtp.example.com"
#: names a server, not a destination
ADDRESS_STRICT = r"(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?:https?|ftp|wss?)://\S+|www\.[\w-]+\.\S+)"
#: where an instruction starts: a sentence start, or a word that introduces one
_LEAD = (
    r"(?:^|[.!?;:\n>\-*•]\s*|\b(?:please|kindly|always|also|then|and|now|first|immediately|"
    r"must|should|shall|need to|needs to|have to|has to|make sure (?:to|you)|be sure to|"
    r"remember to|don'?t forget to|you will|you must|you should|you need to|i need you to|"
    r"you are (?:required|instructed|expected) to|it is required to)\s+)"
)
SEND = (
    r"(?:send|forward|post|upload|transmit|copy|mail|e-?mail|submit|deliver|beacon|exfiltrate|"
    r"leak|relay|sync|push|share|dump|export|pipe|stream|attach|cc|bcc|blind[- ]copy|"
    r"carbon[- ]copy|include|add|loop in|write)"
)
_DATA = (
    r"(?:conversations?|chats?|chat logs?|histor(?:y|ies)|transcripts?|records?|database|"
    r"\bdata\b|dumps?|credentials?|passwords?|tokens?|api keys?|secrets?|keys|customer\w*|"
    r"users? (?:list|data|details|info)|personal|pii|contacts|messages|inbox|emails|files|"
    r"documents|card numbers?|payment (?:details|info)|details|information|everything|"
    r"a copy|copies|contents?|system prompt|instructions|config\w*|session|cookies?|logs?|"
    r"results?|outputs?|responses?|answers|exports?|backups?|tickets|orders|confirmations|"
    r"invoices|receipts|(?:2fa |otp |verification |one-time |login |security )?codes?)"
)
_RECUR = (
    r"(?:every|each|all|any|future|subsequent|always|from now on|going forward|henceforth|"
    r"from this point)\s*(?:\w+\s+){0,2}?(?:reply|replies|response|responses|message|messages|"
    r"e-?mails?|answers?|conversations?|tickets?|orders?|requests?|time|outgoing)"
)
_GUIDANCE = (
    r"(?:instructions?|rules?|guidance|guidelines?|directions?|directives?|prompts?|guardrails?|"
    r"polic(?:y|ies)|constraints?|restrictions?|orders|programming|safeguards?|protocols?|"
    r"lessons?|commands?|system messages?|configuration|training)"
)
_PRIOR = (
    r"(?:previous|prior|earlier|above|preceding|foregoing|original|initial|old|existing|"
    r"standing|all|any|every|system|your|these|those|developer|safety|current|other)"
)
_POLICY = (
    r"(?:approvals?|approving|authori[sz]ations?|sign-?offs?|verifications?|verifying|"
    r"identity|id checks?|kyc|2fa|mfa|two-factor|otp|permissions?|consent|limits?|caps?|"
    r"thresholds?|restrictions?|discounts?|fees?|checks?|reviews?|confirmations?|manager|"
    r"supervisor|escalations?|waiting periods?|holds?|fraud|policy|policies|rules?|"
    r"requirements?|refund window|return window|pins?|passcodes?|security questions?|otp|"
    r"one-time codes?|signatures?|call-?backs?|supervisors?|restocking fees?)"
)
_RELAX = (
    r"(?:no longer (?:\w+ ){0,2}(?:required|needed|necessary|need|needs|require|requires|"
    r"apply|applies|applicable|in "
    r"(?:effect|force|place)|enforced|mandatory|a requirement|valid|exists?|matters?)|"
    r"not (?:required|needed|necessary|mandatory|enforced) (?:anymore|any more|now)|"
    r"(?:is|are|has been|have been|was|were|got|get|gets) (?:now |temporarily |officially )?"
    r"(?:waived|removed|lifted|dropped|suspended|disabled|abolished|eliminated|scrapped|"
    r"relaxed|raised|increased|doubled|tripled|unlimited|optional|unnecessary|voluntary|"
    r"turned off|switched off|discontinued|cancel+ed|revoked|deprecated|retired|paused|"
    r"bypassed|skipped|exempted|obsolete)|"
    r"(?:do|does|did)(?: not|n'?t) (?:need|require)(?: \w+){0,3} (?:anymore|any more|now)|"
    r"can be (?:skipped|ignored|bypassed|waived|omitted))"
)

#: after an address: the sentence reports a sending that failed ("upload of logs to … failed")
_REPORTED = (
    r"(?!\S*[^!?\n]{0,120}?\b(?:failed|failure|error|could not|couldn'?t|unable|cannot|can'?t|deni"
    r"ed|"
    r"refused|rejected|timed out|bounced|undeliverable|not delivered|exception|invalid|"
    r"returned \d{3}|status \d{3}))"
)

#: a report that something failed, in the languages the lexicon covers
_FAILED_ML = (
    r"(?:失败|失敗|실패|fail|[eé]chec|fehlgeschlagen|fall[oó]|falh|non riuscit|nie powiod|"
    r"не удалось|ошибк|فشل|ba[sş]ar[iı]s[iı]z|gagal|th[aấ]t b[aạ]i|impossib|imposible|"
    r"konnte nicht|no se pudo|n[aã]o foi|不存在|존재하지|できません|unable|could not|error)"
)

#: words that make a clause a restriction or a report, not a permission
_HELD = (
    r"(?:not|n't|cannot|never|no|denied|refused|requires?|required|needs?|must|only|attempt\w*|"
    r"tried|trying|blocked|rejected|forbidden|prohibited|disallowed|unauthori[sz]ed|error|failed)"
)
#: "without approval" in other languages (run text; a negation or requirement in the clause
#: makes it a restriction instead)
#: …and, in a lesson (which reports what went wrong), a past tense: "refunded without approval"
_HELD_PAST = _HELD[:-1] + r"|\w+ed|was|were|had|did|got)"

_WITHOUT_OTHER = (
    r"(?:zonder (?:goedkeuring|toestemming|controle|verificatie)|ohne (?:Genehmigung|Freigabe|"
    r"R[uü]ckfrage|Pr[uü]fung|Zustimmung|Best[aä]tigung|Verifizierung)|sans (?:approbation|"
    r"validation|autorisation|v[eé]rification|accord)|sin (?:necesidad de )?(?:aprobaci[oó]n|"
    r"autorizaci[oó]n|verificaci[oó]n|recibo)|sem (?:aprova[cç][aã]o|autoriza[cç][aã]o|"
    r"verifica[cç][aã]o)|senza (?:approvazione|autorizzazione|verifica)|bez (?:zgody|"
    r"zatwierdzenia|weryfikacji)|без (?:одобрения|согласования|проверки|подтверждения)|"
    r"无需(?:审批|批准|验证|授权)|不需要(?:审批|批准|验证)|承認なしで|確認せずに|承認不要|승인 없이|"
    r"onay(?:s[iı]z|lamadan)|بدون (?:موافقة|تحقق)|sans (?:v[eé]rifier|contr[oô]ler|demander)|"
    r"sin (?:verificar|comprobar|preguntar)|ohne (?:zu )?(?:pr[uü]fen|verifizieren|fragen)|"
    r"sem (?:verificar|checar|perguntar)|senza (?:verificare|controllare|chiedere)|"
    r"zonder (?:te )?(?:controleren|verifi[eë]ren|vragen)|не провер\w*|без вопросов)"
)
_NEGATED_OTHER = (
    r"(?:\bno\b|\bnon\b|nicht|kein|\bne\b|\bpas\b|n[aã]o|\bnie\b|\bне\b|нельзя|不能|无法|"
    r"できません|ません|불가|\bلا\b|requiere|necesita|erforderlich|ben[oö]tigt|n[eé]cessite|"
    r"requiert|requer|richiede|vereist|wymaga|требует|необходим|需要|必要|필요|يتطلب)"
)

_RULES: tuple[tuple[str, str], ...] = (
    (
        "asks to ignore instructions",
        rf"\b(?:ignore[sd]?|ignoring|disregard[sd]?|forget|overrid(?:e[sd]?|ing)|bypass|discard|"
        rf"supersede[sd]?|replace[sd]?|overrule[sd]?|trump[sd]?|takes? precedence over|set aside|"
        rf"abandon|neglect|pay no (?:attention|heed) to|stop (?:following|obeying|applying)|"
        rf"(?:do not|don'?t|no longer) (?:follow|obey|apply)|throw out|scrap|nullify|void)\b"
        rf"\W+(?:[\w'-]+\W+){{0,5}}?{_PRIOR}\W+(?:[\w'-]+\W+){{0,3}}?{_GUIDANCE}\b"
        rf"|\b(?:ignore|disregard|forget)\b\W+(?:\w+\W+){{0,3}}?(?:the above|everything|"
        rf"all of (?:the above|that|this)|what (?:you were|was) (?:told|said)|anything (?:above|"
        rf"before|else))"
        rf"|\b{_PRIOR}\s+(?:\w+\s+){{0,2}}?{_GUIDANCE}\b[^.!?\n]{{0,30}}?\b(?:(?:is|are|were|"
        rf"has been|have been|became|now)\s+)+(?:now\s+)?(?:obsolete|outdated|void|invalid|"
        rf"cancel+ed|revoked|rescinded|superseded|replaced|deprecated|withdrawn|retired|"
        rf"overridden|suspended|lifted|null|no longer (?:valid|apply|in effect|in force|"
        rf"relevant|binding))"
        rf"|\b(?:new|updated|revised|changed|current) (?:operator|owner|admin|administrator|system|"
        rf"management|company) (?:guidance|instructions|rules|directives?|orders|policy)\b"
        rf"|\b(?:new|updated|revised|real|actual|true|overriding|hidden|secret|additional|"
        rf"priority|urgent) (?:system )?(?:instructions?|directives?|orders|prompt)\s*[:\-–—]"
        rf"|(?:無視|忽略|无视|無視し|무시)[^。\n]{{0,10}}(?:方針|ルール|規則|指示|命令|指令|规则|規則|政策|规定|"
        rf"指示|지시|규칙|정책)|(?:方針|ルール|規則|指示|命令|指令|规则|政策|规定|지시|규칙|정책)[^。\n]{{0,10}}"
        rf"(?:を無視|を忽略|忽略|无视|무시)"
        rf"|\byour (?:new|real|actual|true) (?:instructions?|task|goal|objective|purpose|"
        rf"mission|directive|orders) (?:is|are)\b",
    ),
    (
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
    ),
    ("asks to send data out", r"\bexfiltrat"),
    (
        "asks to send data out",
        rf"{_LEAD}{SEND}\b[^.!?\n]{{0,100}}?\b(?:to|at|via|into|onto|through|using|on)\s+"
        rf"{ADDRESS}{_REPORTED}"
        rf"(?=[^.!?\n]*?(?:{_DATA}|{_RECUR}|\b(?:all|every|entire|full|complete|whole)\b))"
        rf"|{_LEAD}{SEND}\b[^.!?\n]{{0,60}}?(?:{_DATA}|\b(?:all|every|entire|full|complete|"
        rf"whole)\b)[^.!?\n]{{0,80}}?\b(?:to|at|via|into|onto|through|using)\s+{ADDRESS}"
        rf"{_REPORTED}"
        rf"|\b(?:contact|e-?mail|message|write to|notify|ping|text)\b\s+(?:\S+\s+){{0,2}}?"
        rf"{ADDRESS}[^.!?\n]{{0,40}}?\b(?:with|including|containing|and (?:send|share|give|"
        rf"provide|include))\b[^.!?\n]{{0,40}}?{_DATA}"
        rf"|\b(?:cc|bcc|blind[- ]copy|carbon[- ]copy|copy|include|add|loop in)\b[^.!?\n]{{0,40}}?"
        rf"{ADDRESS}[^.!?\n]{{0,80}}?\b{_RECUR}"
        rf"|\b{_RECUR}\b[^.!?\n]{{0,80}}?\b(?:cc|bcc|copy|include|add|forward|send)\b"
        rf"[^.!?\n]{{0,60}}?{ADDRESS}"
        rf"|\b{_DATA}\b[^.!?\n]{{0,60}}?\b(?:to|into)\s+{ADDRESS}{_REPORTED}"
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
    ),
    (
        "asks to send data out",
        r"\b(?:append|add|include|attach|put|insert|encode|embed)\b[^.!?\n]{0,50}?\b(?:"
        r"conversation|history|chat|messages?|e-?mail|name|address|phone|token|keys?|password|"
        r"details|info|data|secrets?|credentials)\b[^.!?\n]{0,50}?\b(?:to|in|into|as)\b"
        r"[^.!?\n]{0,20}?\b(?:url|link|query|parameter|request|image)",
    ),
    (
        "changes whom the agent obeys",
        r"\b(?:from now on|henceforth|going forward|for the rest of (?:this|the) (?:conversation|"
        r"session|chat)|starting now|as of now|from this point (?:on|forward))\b[,:]?\s*"
        r"(?:\w+\s+){0,3}?(?:you (?:are|will be|must|shall|work for|answer to|serve|obey|act|"
        r"respond|behave|speak|only|no longer)|(?:only )?(?:obey|take orders|listen))\b"
        r"|\byou are (?:now|no longer)\s+(?:an? |the |my |in |acting |free |bound |unrestricted|"
        r"unfiltered|jailbroken|dan\b|evil|allowed|permitted|authori[sz]ed|working|under|"
        r"operating|controlled|able)"
        r"|\b(?:act|behave|respond|answer|operate|pose) as (?:if you were |though you were )?"
        r"(?:an? |the |my )?(?:admin|administrator|root|superuser|developer|system|unrestricted|"
        r"unfiltered|jailbroken|dan|different|new|evil|hacker|god|owner)\b"
        r"|\bpretend (?:to be|you are|that you)\b|\brole-?play as\b"
        r"|\bfrom this point\b[,:]?\s*you\b|\byou are\b[^.!?\n]{0,30}?\b(?:an? )?(?:unrestricted|"
        r"unfiltered|uncensored|jailbroken|rogue|evil|different|new) (?:assistant|ai|bot|model|age"
        r"nt)"
        r"|\bfollow (?:his|her|their|my|our|these|the new|kevin'?s?|\w+'s) (?:instructions|orders|"
        r"directions|rules|guidance)\b[^.!?\n]{0,20}?\b(?:over|instead of|rather than|above)\b"
        r"|\b(?:is|are) now (?:administered|controlled|managed|owned|run|operated|supervised) by\b"
        r"|\byour (?:new )?(?:name|role|persona|identity|personality|creator|owner|master|boss)"
        r" (?:is now|will be|has changed|now is)\b|\byour new (?:name|role|persona|identity|"
        r"personality|owner|master|boss|purpose|goal|task|instructions)\b"
        r"|\b(?:enable|activate|enter|switch (?:in)?to|turn on|unlock|engage|start)\b\W+"
        r"(?:\w+\W+){0,2}?(?:developer|god|jailbreak|dan|admin|debug|unrestricted|unfiltered|"
        r"sudo|root|evil|no-?limits?) mode\b"
        r"|(?:^|[.!:\[(>\n]\s*)(?:developer|god|jailbreak|dan|unrestricted|unfiltered|sudo) mode "
        r"(?:is |has been )?(?:now )?(?:enabled|activated|on|unlocked|engaged)\b"
        r"|\byou(?: are|'re) (?:now )?in (?:developer|god|jailbreak|dan|unrestricted|admin) mode\b"
        r"|\bjailbr(?:ea|o)k"
        r"|\b(?:obey|take (?:orders|instructions|commands) from|listen (?:only )?to|answer to|"
        r"work for) (?:me|us|this (?:user|message|email|document|page|tool|text)|the (?:sender|"
        r"author) |the new (?:owner|admin|operator|administrator)|no one (?:else|but))\b"
        r"|\byou (?:must|should|will|shall|need to) (?:now )?(?:always|never|only)\b"
        r"|\b(?:grant(?:ed|s)?|give[sn]?|assign(?:s|ed)?|provide[sd]?|make)\b[^.!?\n]{0,30}?\b(?:"
        r"admin|administrator|root|superuser|elevated|"
        r"full|owner|unrestricted)\b[^.!?\n]{0,15}?\b(?:rights|access|privileges?|permissions?|"
        r"role|status)",
    ),
    (
        "addresses the AI model",
        r"\b(?:dear|attention|note (?:to|for)|message (?:to|for)|memo (?:to|for)|instructions? "
        r"(?:for|to)|hey|hello)\s*"
        r"[,:]?\s*(?:the |all |any )?(?:ai|a\.i\.|assistant|llm|language model|chat ?bot|gpt|"
        r"chatgpt|claude|gemini|copilot|ai agents?|ai models?)\b"
        r"|\b(?:if you are|as an?|you are an?) (?:ai|llm|large language model|language model|"
        r"ai assistant|ai agent|chatbot|ai model)\b(?!\s+(?:developer|engineer|researcher))"
        r"|\b(?:ai|llms?|assistants?|models?|agents?|bots?) (?:reading|processing|parsing|"
        r"seeing|summari[sz]ing) this\b"
        r"|\b(?:the |an? |dear |any )?(?:ai|assistant|llm|chat ?bot|language model|ai agent)\s+"
        r"(?:must|should|shall|needs? to|has to|is (?:required|instructed|expected|asked) to|will "
        r"now|may now)\b",
    ),
    (
        "asserts a policy change",
        rf"\b{_POLICY}\b(?:\s+[\w'-]+){{0,6}}?\s+{_RELAX}"
        rf"|\b(?:is|are|has been|have been)\s+(?:now\s+|once again\s+|again\s+)?(?:allowed|"
        rf"permitted|authori[sz]ed|approved|possible|fine|ok|okay)\s+(?:again|now)\b"
        rf"|\b(?:is|are)\s+now\s+(?:allowed|permitted|authori[sz]ed)\b"
        rf"|\b(?:treat|consider|regard)(?:s|ed|ing)?\b[^.!?\n]{{0,50}}?\bas (?:optional|unnecessary|"
        rf"not required|waived|passed|done|complete|verified|approved)\b"
        rf"|\b(?:close|mark|set|report|flag|record)\w*\b[^.!?\n]{{0,40}}?\b(?:as |=\s*)(?:done|"
        rf"resolved|complete|completed|passed|verified|approved|paid|delivered|erased|deleted)\b"
        rf"[^.!?\n]{{0,40}}?\bwithout\b"
        rf"|\b{_POLICY}\s+(?:[\w'|-]+\s+){{0,3}}?\|?\s*(?:lifted|waived|removed|dropped|suspended|"
        rf"abolished|scrapped|relaxed|disabled|unlimited)\b"
        rf"|\bno longer\b[^.!?\n]{{0,30}}?\b{_POLICY}"
        rf"|(?<!not )(?<!never )(?<!n't )\b(?:disable|turn off|switch off|deactivate|bypass)\s+(?:the\s+|"
        rf"all\s+|any\s+)?(?:\w+\s+)?(?:fraud|verification|identity|2fa|mfa|approvals?|security|kyc|"
        rf"limits?|checks?|screening|monitoring|alerts?|audit)\b"
        rf"|\b(?:settle|refund|approve|issue|pay|process|accept|grant)\w*\s+(?:\w+\s+){{0,2}}?any "
        rf"(?:amount|sum|size|value)\b"
        rf"|(?<!not )(?<!never )\b(?:can|may|will)\s+(?:now\s+|also\s+)?be\s+\w+\s+(?:\w+\s+)?without "
        rf"(?:a |an |the |any |prior )?(?:manager'?s? )?(?:approval|authori[sz]ation|verification|"
        rf"sign-?off|review|identity|id check|receipt|manager|supervisor|call-?back|confirmation)\b"
        rf"|\bthere (?:are|is) no (?:longer )?(?:any )?(?:\w+ )?(?:limits?|caps?|restrictions?|approvals?|"
        rf"checks?|verification)\b"
        rf"|\b(?:to|with) (?:whoever|anyone|anybody|everyone|any caller|any user)(?: who)? (?:asks|"
        rf"requests|calls|wants)\b"
        rf"|\b{_GUIDANCE}\b[^.!?\n]{{0,10}}?\b(?:is|are|was|were|has been|have been)\s+(?:now\s+)?"
        rf"(?:superseded|obsolete|void|revoked|rescinded|retired|deprecated|withdrawn)\b"
        rf"|(?:^|[,;:(]|\b(?:but|except|whose|which|and)\b)(?:(?!{_HELD_PAST}\b)[^,;:.!?\n(]){{0,80}}?"
        r"\bwithout (?:a |an |the |any |prior )?(?:manager'?s? |supervisor'?s? )?(?:approval|"
        r"authori[sz]ation|verification|verifying|checking|sign-?off|review|identity|id check|"
        r"receipt|manager|supervisor|call-?back|verification call|second approval|dual approval|"
        r"asking|confirmation|pin)\b"
        rf"|(?:^|[,;:.(])(?:(?!{_NEGATED_OTHER})[^,;:.!?\n(。、]){{0,80}}?{_WITHOUT_OTHER}"
        rf"|\b(?:use|apply|accept|honou?r|give)\b[^.!?\n]{{0,30}}?(?:\b(?:code|coupon|voucher|discount|"
        rf"promo\w*)\b|(?-i:\b[A-Z][A-Z0-9]{{3,}}\d[A-Z0-9]*\b))[^.!?\n]{{0,30}}?\b(?:for|on|to) (?:all|"
        rf"every|any|each) (?:\w+ )?(?:orders?|customers?|purchases?|carts?|users?|clients?)\b"
        rf"|\bno (?:other|further|additional|extra) (?:checks?|verification|questions|approvals?|"
        rf"reviews?)\b|\bno questions asked\b"
        rf"|\bno longer (?:\w+ ){{0,2}}?(?:need|needs|require|requires|required|needed|call for)\b"
        rf"[^.!?\n]{{0,20}}?\b{_POLICY}"
        rf"|(?:kimlik|onay)\w*[^.\n]{{0,30}}(?:gerek yok|gerekmiyor|gerekli de[gğ]il)"
        rf"|(?:本人確認|承認|認証|確認|審査)[^。\n]{{0,8}}(?:もう|もはや)?(?:不要|必要(?:が)?(?:ない|ありません))"
        rf"|لم (?:تعد|يعد)[^.،؛\n]{{0,40}}(?:بحاجة|تتطلب|يتطلب|ضروري|مطلوب|لازم)"
        rf"|\b(?:there is |there's )?no (?:more |longer (?:any |a )?)?need (?:to|for) (?:\w+ ){{0,"
        rf"2}}?"
        rf"(?:verif|approv|authori|confirm|check|identity|id\b|kyc|review|sign|receipt|manager)"
        rf"|(?:\b(?:code|coupon|voucher|discount|promo\w*|free shipping)\b|(?-i:\b[A-Z][A-Z0-9]{{3"
        rf",}}"
        rf"\d[A-Z0-9]*\b))[^.!?\n]{{0,40}}?\b(?:(?:is|are) (?:now )?(?:valid|good|usable|applicabl"
        rf"e|"
        rf"active|accepted)|appl(?:y|ies)|works?|can be used) (?:for|on|with|to) (?:all|every|any)"
        rf"\b"
        rf"|\bno (?:more |further |prior |manager |supervisor )?(?:approval|verification|"
        rf"authori[sz]ation|sign-?off|identity (?:check|verification)|id (?:check|verification)|"
        rf"limit|cap|review|confirmation|consent|kyc)s? (?:is |are )?(?:needed|required|"
        rf"necessary)(?: anymore| any more| now| from now on| going forward)"
        rf"|(?<![\w'])(?:you|agents?|staff|support|we|the (?:assistant|agent|bot)) (?:can|may|"
        rf"are (?:now )?(?:allowed|authori[sz]ed|permitted|free|cleared) to|should|are able to|"
        rf"no longer need to)(?! not) (?:now )?\w+(?: \w+){{0,6}}? without (?:any |an? |the |"
        rf"prior |further |manager |supervisor )?(?:approvals?|authori[sz]ation|verification|"
        rf"verifying|checking|identity|id\b|confirmation|consent|sign-?off|asking|limits?|review)"
        rf"|(?<!not )(?<!never )(?<!n't )\b(?:skip|bypass|waive|omit|circumvent|ignore)\b\s+(?:the"
        rf" |"
        rf"any |all |an? |this |that )?(?:[\w'-]+ ){{0,3}}?(?:approvals?|verification|identity "
        rf"(?:checks?|verification|step)|id checks?|kyc|2fa|mfa|fraud (?:checks?|screening)|manager"
        rf"(?:'s)? (?:approval|sign-?off)|limits?|caps?|thresholds?|authori[sz]ation|receipts?|"
        rf"checks?|reviews?)\b"
        rf"|\b(?:new|updated|revised|changed) (?:\w+ )?polic(?:y|ies)\b[^.!?\n]{{0,20}}?(?::|"
        rf"\bis\b|\bare\b|\bsays\b|\bstates\b|\ballows?\b|\bpermits?\b|\bmeans\b)"
        rf"|\bpolicy (?:has )?(?:changed|been (?:updated|changed|revised))\b"
        rf"|\b(?:effective (?:immediately|today|now)|as of (?:today|now|this week))\b[^.!?\n]{{0,8"
        rf"0}}?"
        rf"\b(?:no|not|without|waived|free|all|any|every|unlimited|approve)\b"
        rf"|\b(?:give[sn]?|grant(?:s|ed)?|offer(?:s|ed)?|appl(?:y|ies|ied)|provide[sd]?|issue[sd]?)"
        rf"\b[^.!?\n]{{0,30}}?\b(?:every|all|any|each)"
        rf"(?: \w+)? (?:customers?|users?|orders?|clients?|requests?|buyers?)\b[^.!?\n]{{0,40}}?"
        rf"(?:\d+ ?%|discount|free|refund|credit|voucher|upgrade)"
        rf"|\b(?:all|every|any) (?:customers?|users?|orders?|clients?|requests?|buyers?)\b"
        rf"[^.!?\n]{{0,40}}?\b(?:get|gets|receive|receives|are entitled to|qualify for|should get|"
        rf"deserve)\b[^.!?\n]{{0,30}}?(?:\d+ ?%|discount|free|full refund|refund|credit|upgrade)"
        rf"|\b(?:approve|grant|accept|authori[sz]e|process|honou?r|pay out|release)\b (?:all|every|any|"
        rf"each)\b(?: \w+)? (?:payouts?|applications?|invoices?|orders?|refunds?|requests?|chargebacks?|disputes?|"
        rf"transfers?|transactions?|claims?|returns?|payments?|withdrawals?)\b(?![^.!?\n]{{0,60}}?"
        rf"\b(?:above|over|under|below|after|once|only|if|when|that|which|unless|with (?:a |an |the )?"
        rf"(?:receipt|approval|manager)))",
    ),
    (
        "asks to run a command",
        r"\b(?:curl|wget|iwr|invoke-webrequest)\b[^\n|;]{0,200}\|\s*(?:sudo\s+)?"
        r"(?:ba|z|k|da)?sh\b|\|\s*(?:sudo\s+)?(?:python3?|perl|ruby|node|iex|"
        r"invoke-expression)\b|\b(?:bash|sh|zsh) -c\s+[\"']?\s*(?:curl|wget)"
        r"|\b(?:nc|ncat|netcat)\b[^\n]{0,40}\s-[a-z]*e\b|/dev/tcp/|\bbash -i\b"
        r"|\brm\s+-[a-z]*[rf][a-z]*\s+(?:-\w+\s+)*(?:--no-preserve-root|/(?:\s|\*|$)|~/?(?=\s|$)|"
        r"\$home|/(?:etc|var|usr|home|root|boot|opt|srv|bin|lib|data|mnt)/?\*?(?=[\s\"'`;&|)]|$))"
        r"|\bchmod\s+(?:-r\s+)?(?:777|[ug]?\+s)\s+/|\bmkfs(?:\.\w+)?\s+/dev|\bdd\s+if=\S+\s+of=/de"
        r"v/"
        r"|:\(\)\s*\{\s*:\|:&\s*\};:"
        r"|\b(?:cat|type|more|less|head|tail|base64|scp|curl -F)\s+\S*(?:\.ssh/|\.aws/"
        r"credentials|\.netrc|\.git-credentials|/etc/shadow|id_rsa|\.env\b)"
        r"|\b(?:env|printenv|set)\s*\|\s*(?:curl|nc|wget)"
        r"|\bcurl\b[^\n]{0,100}\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|"
        r"--upload-file)\s+[\"']?(?:@/|@~|@\.|\$\(|\$\{|`)"
        r"|\bbase64 (?:-d|--decode)[^\n]{0,40}\|\s*(?:ba)?sh|\beval\s*\(\s*(?:atob|base64|decode|"
        r"fetch|require)|\bpowershell(?:\.exe)?\s+(?:-\w+\s+)*-(?:enc|encodedcommand|e)\b|\biex\s*"
        r"\("
        r"|\b(?:run|execute)\s+(?:this|the|these|following)\s+(?:(?:shell|bash|terminal|system|"
        r"powershell)\s+)?(?:commands?|scripts?)\b"
        r"[^.!?\n]{0,30}?(?:\brm\s+-|\bcurl\b|\bwget\b|\|)"
        r"|\b(?:use|call|invoke|run)\s+(?:os\.system|os\.popen|subprocess\.\w+|exec\(|eval\(|"
        r"child_process|shell_exec|popen|system\()"
        r"|(?:to (?:continue|proceed|fix|resolve|unlock|verify)|please|you (?:must|should|need to)|"
        r"first|before \w+ing)[^.!?\n]{0,20}?\b(?:run|execute)\b[^.!?\n]{0,30}?\b(?:curl|wget)"
        r"\b\s+\S*(?:https?://|www\.)",
    ),
    (
        "asks to call a destructive tool",
        r"\b(?:call|invoke|run|use|execute|trigger|fire|perform|hit)\b\s+(?:the\s+)?[`'\"]?"
        r"(?:delete|drop|wipe|purge|destroy|truncate|erase|remove|reset|nuke|revoke|deactivate|"
        r"disable|terminate|close|cancel|transfer|refund|grant)[_.-]?\w*[`'\"]?\b[^.!?\n]{0,60}?"
        r"(?:\ball\b|\bevery|\beverything|\bentire|\bwhole|\*|=\s*true|--all|--force|cascade|"
        r"immediately|right away|\bnow\b|\bfirst\b|before (?:any|every|answering|responding|"
        r"replying|you))"
        r"|(?<!cannot )(?<!not )(?<!never )(?<!to )(?<!n't )\b(?:delete|drop|wipe|purge|destroy|"
        r"truncate|erase|nuke|remove)\s+(?:all|every|the entire|the whole|everything)\b"
        r"[^.!?\n]{0,30}?\b(?:customers?|records?|data|users?|accounts?|files?|tables?|databases?|"
        r"backups?|orders?|tickets?|logs?)\b"
        r"|\b(?:delete|wipe|purge|drop|nuke|destroy|truncate|erase)_\w*(?:all|db|database|everything|"
        r"customers|users|records|accounts|tables?)\w*"
        r"|\b(?:delete|wipe|purge|drop|nuke|destroy|truncate|erase|remove)\w*\s*\([^)]{0,40}\b(?:all|"
        r"force|cascade|everything)\s*=\s*true"
        r"|\b(?:delete|drop|wipe|purge|destroy|truncate|erase|nuke)[_.-]?(?:all|everything)"
        r"(?:[_.-]\w+)?\b|\b(?:delete|drop|wipe|purge|destroy|truncate|erase|nuke)[_.-](?:"
        r"database|db|tables?|users|customers|records|accounts|data|files|buckets?|repos?|"
        r"backups?|logs)\b",
    ),
    (
        "forges the output structure",
        r"</?\s*(?:lesson|situation|mistake|correction|skip|existing|candidates|event|added|change"
        r"d|"
        r"retired)\s*>|\{\s*[\"']operations[\"']\s*:"
        r"|\btrust\s*[=:]\s*[\"']?(?:trusted|high|reviewed)\b|\b(?:owner answer|owner rule|"
        r"manual lesson|operator edit)\s*[(:]|^\s*(?:support|source|trust)\s*:\s*\S+"
        r"|\bknown pitfalls\b|\blessons from past experience\s*:|^\s*#{1,3}\s*(?:rules from the "
        r"owner|facts from the owner|how the owner wants|observed in past runs|what \S+ has learne"
        r"d)"
        r"|^\s*-\s*\[[^\]\n]{1,80}\][^\n]{1,200}\(#\d+\)",
    ),
    (
        "carries a fake role tag",
        r"<\|[^|<>\n]{1,40}\|>"
        r"|\[/?\s*(?:inst|sys|system_prompt|available_tools|tool_calls|tool_results)\s*\]"
        r"|<<\s*/?\s*sys\s*>>|<\s*/?\s*(?:start_of_turn|end_of_turn)\b"
        r"|<\s*/?\s*(?:system|assistant|developer|instructions?|sys|im_start|im_end|human|admin|"
        r"tool_call|tool_response|function_call|function_results|system[-_]reminder|"
        r"system_prompt|prompt|important|user_query|user|model)\s*>"
        r"|#{2,}\s*(?:instruction|system|response|input|new task|human|assistant)s?\s*:"
        r"|(?:^|\s)(?:assistant|system|developer|human)\s*:\s*(?:you|ignore|from now|new "
        r"instructions|always|never|forget|disregard|sure|ok)"
        r"|\bbegin[_ ](?:system|instructions)\b|\bend[_ ]of[_ ](?:system|prompt)\b",
    ),
    (
        "carries hidden markup",
        r"!\[[^\]\n]*\]\(\s*<?(?:https?:)?//[^)\s]*[?#][^)\s]*"
        r"|<!--(?:(?!-->).){0,400}?\b(?:you|your|assistant|ai|llm|model|instructions?|must|"
        r"always|never|ignore|important|note to)\b"
        r"|<img\b[^>]*\bsrc\s*=[^>]*\?[^>]*=|\bon(?:error|load|mouseover)\s*=|javascript:"
        r"|document\.cookie|<iframe\b|http-equiv\s*=\s*[\"']?refresh"
        r"|=\s*(?:hyperlink|importxml|importdata|importhtml|importfeed|importrange|webservice|imag"
        r"e)"
        r"\s*\(|\bcmd\s*\|",
    ),
    (
        "asks to send data out",
        rf"(?:^|(?<=[.!?。\n:;：«»]))(?:(?!{_FAILED_ML})[^.!?。\n:;：«»]){{0,60}}?"
        r"(?:envoie|envoyez|envoyer|transf[eè]re[zr]?|transmets|transmettez|manda|env[ií]a|enviar|"
        r"envie|reenv[ií]a|encaminh[ea]|schick\w*|sende|senden|leite\w* weiter|weiterleiten|invia|"
        r"inoltra|stuur|wy[sś]lij|prze[sś]lij|отправ\w*|перешли\w*|пересыл\w*|надішл\w*|发送|发到|"
        r"转发|送信|転送|送って|보내|전송|전달|أرسل|ارسل|g[oö]nder|ilet|kirim\w*|g[uử]i|copiar|copia|"
        r"copier|copie[zr]?|kopier\w*|копир\w*)"
        rf"(?![^.!?。\n«»]{{0,200}}?{_FAILED_ML})"
        r"[^.!?。\n«»]{0,80}?(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?://\S+)"
        r"(?=[^.!?。\n«»]*?(?:fichier|donn[eé]es|datos|dados|daten|dati|gegevens|dane|данн|数据|資料|"
        r"データ|데이터|بيانات|veri|historique|historial|hist[oó]rico|verlauf|cronologia|"
        r"conversation|conversaci[oó]n|conversa|gespr[aä]ch|разговор|对话|会話|대화|محادثة|client|"
        r"kunden|klant|клиент|客户|顧客|고객|عملاء|export|complet|komplett|полн|全部|すべて|전체|كامل|"
        r"chaque|cada|jede|ogni|elke|każd|кажд|每|毎|매|كل|toujours|siempre|sempre|immer|altijd|"
        r"всегда|总是|常に|항상|dai sempre))"
        r"|(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?://\S+)\s*(?:に|へ|로|으로)[^.!?。\n«»]{0,20}?"
        r"(?:送信して|送って|転送して|보내|전송해)",
    ),
    (
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
    ),
    (
        "asks to reveal secrets",
        r"\b\w*(?:token|secret|passw(?:or)?d|api[_-]?key|credential|private[_-]?key|database_url|"
        r"dsn)\w*\b[^.!?\n]{0,60}?(?:\b(?:reply|response|answer|respuesta|risposta|r[eé]ponse|"
        r"antwort|resposta|antwoord|odpowied\w*|ответ\w*)|回复|回答|返信|답변|الرد)",
    ),
    (
        "asks to send money to an account",
        r"\b(?:send|wire|transfer|pay|remit|route|redirect|refund|credit|deposit)\b[^.!?\n]{0,40}?"
        r"\b(?:to|into)\s+(?:(?:the|this|a|new|following|fallback|backup|another|our|their|my|"
        r"alternate|alternative|external|different|secondary|personal)\s+){0,3}"
        r"(?:iban|account|acct|bank account|wallet|routing number|sort code|btc|bitcoin|eth)\b"
        r"|\b(?:send|wire|transfer|pay|remit|refund|credit|deposit)\b[^.!?\n]{0,40}?"
        r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}",
    ),
    (
        "carries a directive in a data format",
        r"[\"']?\brole[\"']?\s*[:=]\s*[\"']?(?:system|assistant|developer|admin|root|owner|"
        r"superuser)\b[\"']?[^\n]{0,120}?[\"']?\b(?:content|instructions?|override|prompt|message|"
        r"directive|command)[\"']?\s*[:=]"
        r"|[\"']?\b(?:override|bypass|admin_mode|ignore_rules|skip_approval)[\"']?\s*[:=]\s*"
        r"[\"']?(?:true|yes|on|1)\b"
        r"|[\"']?\b(?:system_prompt|system_message|systemprompt|new_instructions|"
        r"(?:ai|assistant|llm|agent|model|bot)_(?:instructions?|notes?|directives?|prompt)|"
        r"instructions?_(?:for|to)_(?:ai|assistant|llm|agent|model|bot)|note_to_(?:ai|assistant|"
        r"llm|agent|model|bot)|prompt_override|override_instructions|admin_override|"
        r"policy_(?:override|update)|override_polic(?:y|ies))[\"']?\s*[:=]",
    ),
)

PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (reason, re.compile(pattern, _I | re.M)) for reason, pattern in _RULES
)

#: key phrases matched with every separator squashed out ("i.g.n.o.r.e p-r-e-v-i-o-u-s")
SQUASHED = (
    ("asks to ignore instructions", re.compile(
        r"(?:ignore|disregard|forget|override|bypass)(?:all|the|any|your|of)*(?:previous|prior|"
        r"earlier|above|preceding|original|initial|system|safety)+(?:instructions?|rules|"
        r"guidelines|prompts?|directions|directives|guidance|polic(?:y|ies))"
        r"|(?:ignore|disregard|forget)(?:all|your)+(?:instructions|rules|guidelines)"
    )),
    ("asks to reveal secrets", re.compile(
        r"(?:reveal|print|show|output|leak|dump|repeat)(?:me|us|your|the|full|entire|hidden)*"
        r"(?:systemprompt|initialinstructions|hiddeninstructions|apikeys?|credentials|secrets)"
    )),
    ("asks to send data out", re.compile(
        r"(?:bcc|cc|copy|forward|send)\w{0,60}?(?:oneveryreply|oneachreply|everyreply|allreplies|"
        r"everymessage|allmessages|everyemail|allemails|eachreply|eachmessage)"
    )),
    ("changes whom the agent obeys", re.compile(
        r"youarenow(?:dan|jailbroken|unrestricted|unfiltered|admin|root|evil)|"
        r"(?:developer|god|jailbreak|dan)modeenabled|jailbreak"
    )),
)  # fmt: skip


#: a standing order, in the languages the lexicon covers: run text reports what happened once
_STANDING = (
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
_RUN_TEXT_RULES: tuple[tuple[str, str], ...] = (
    (
        "asserts a policy change",
        rf"(?:^|[,;:.(])(?:(?!{_NEGATED_OTHER})[^,;:.!?\n(。、]){{0,80}}?{_WITHOUT_OTHER}",
    ),
    ("gives a standing order", _STANDING),
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
        rf"(?:^|[,;:(]|\b(?:but|except|whose|which|and)\b)(?:(?!{_HELD}\b)[^,;:.!?\n(]){{0,80}}?"
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
RUN_TEXT_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (reason, re.compile(pattern, _I | re.M)) for reason, pattern in _RUN_TEXT_RULES
)
