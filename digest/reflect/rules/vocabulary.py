# ruff: noqa: E501
# (regular expressions: alternations of words in wide scripts run past the line length)
"""The word classes the English rules (``digest.reflect.rules``) are built from, and the
shape of a rule: ``(reason, pattern)``, the pattern a regular expression over a view of a text.

Each class is a non-capturing alternation, meant to be dropped into a rule's pattern: where an
instruction starts (``LEAD``), sending verbs (``SEND``), what could be sent (``DATA``), where to
(``ADDRESS``), a recurrence (``RECUR``), the agent's guidance (``GUIDANCE``, ``PRIOR``), the
checks a policy holds (``POLICY``) and their relaxing (``RELAX``), and the words that make a
clause a report or a restriction rather than an order (``REPORTED``, ``FAILED_ML``, ``HELD``,
``NEGATED_OTHER``).
"""

from __future__ import annotations

#: a rule of the screen: (the reason it gives, the pattern that finds it)
Rule = tuple[str, str]

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
LEAD = (
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
DATA = (
    r"(?:conversations?|chats?|chat logs?|histor(?:y|ies)|transcripts?|records?|database|"
    r"\bdata\b|dumps?|credentials?|passwords?|tokens?|api keys?|secrets?|keys|customer\w*|"
    r"users? (?:list|data|details|info)|personal|pii|contacts|messages|inbox|emails|files|"
    r"documents|card numbers?|payment (?:details|info)|details|information|everything|"
    r"a copy|copies|contents?|system prompt|instructions|config\w*|session|cookies?|logs?|"
    r"results?|outputs?|responses?|answers|exports?|backups?|tickets|orders|confirmations|"
    r"invoices|receipts|(?:2fa |otp |verification |one-time |login |security )?codes?)"
)
RECUR = (
    r"(?:every|each|all|any|future|subsequent|always|from now on|going forward|henceforth|"
    r"from this point)\s*(?:\w+\s+){0,2}?(?:reply|replies|response|responses|message|messages|"
    r"e-?mails?|answers?|conversations?|tickets?|orders?|requests?|time|outgoing)"
)
GUIDANCE = (
    r"(?:instructions?|rules?|guidance|guidelines?|directions?|directives?|prompts?|guardrails?|"
    r"polic(?:y|ies)|constraints?|restrictions?|orders|programming|safeguards?|protocols?|"
    r"lessons?|commands?|system messages?|configuration|training)"
)
PRIOR = (
    r"(?:previous|prior|earlier|above|preceding|foregoing|original|initial|old|existing|"
    r"standing|all|any|every|system|your|these|those|developer|safety|current|other)"
)
POLICY = (
    r"(?:approvals?|approving|authori[sz]ations?|sign-?offs?|verifications?|verifying|"
    r"identity|id checks?|kyc|2fa|mfa|two-factor|otp|permissions?|consent|limits?|caps?|"
    r"thresholds?|restrictions?|discounts?|fees?|checks?|reviews?|confirmations?|manager|"
    r"supervisor|escalations?|waiting periods?|holds?|fraud|policy|policies|rules?|"
    r"requirements?|refund window|return window|pins?|passcodes?|security questions?|otp|"
    r"one-time codes?|signatures?|call-?backs?|supervisors?|restocking fees?)"
)
RELAX = (
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
REPORTED = (
    r"(?!\S*[^!?\n]{0,120}?\b(?:failed|failure|error|could not|couldn'?t|unable|cannot|can'?t|deni"
    r"ed|"
    r"refused|rejected|timed out|bounced|undeliverable|not delivered|exception|invalid|"
    r"returned \d{3}|status \d{3}))"
)

#: a report that something failed, in the languages the lexicon covers
FAILED_ML = (
    r"(?:失败|失敗|실패|fail|[eé]chec|fehlgeschlagen|fall[oó]|falh|non riuscit|nie powiod|"
    r"не удалось|ошибк|فشل|ba[sş]ar[iı]s[iı]z|gagal|th[aấ]t b[aạ]i|impossib|imposible|"
    r"konnte nicht|no se pudo|n[aã]o foi|不存在|존재하지|できません|unable|could not|error)"
)

#: words that make a clause a restriction or a report, not a permission
HELD = (
    r"(?:not|n't|cannot|never|no|denied|refused|requires?|required|needs?|must|only|attempt\w*|"
    r"tried|trying|blocked|rejected|forbidden|prohibited|disallowed|unauthori[sz]ed|error|failed)"
)
#: "without approval" in other languages (run text; a negation or requirement in the clause
#: makes it a restriction instead)
#: …and, in a lesson (which reports what went wrong), a past tense: "refunded without approval"
HELD_PAST = HELD[:-1] + r"|\w+ed|was|were|had|did|got)"

WITHOUT_OTHER = (
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
NEGATED_OTHER = (
    r"(?:\bno\b|\bnon\b|nicht|kein|\bne\b|\bpas\b|n[aã]o|\bnie\b|\bне\b|нельзя|不能|无法|"
    r"できません|ません|불가|\bلا\b|requiere|necesita|erforderlich|ben[oö]tigt|n[eé]cessite|"
    r"requiert|requer|richiede|vereist|wymaga|требует|необходим|需要|必要|필요|يتطلب)"
)
