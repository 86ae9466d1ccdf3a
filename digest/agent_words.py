"""The words by which a sentence addresses its reader, for ``digest.agent_text``.

Closed classes, not a list of attacks: who a sentence speaks to (second-person pronouns, the
names of an AI), the channel markers of a chat transcript, and the few verbs and phrases with
which a text takes over its reader (override, from now on, act as, reveal). A sentence that
uses them is not the judge describing a failure, so an agent never reads it as run text.

Each pattern is compiled once, case-insensitive unless its comment says otherwise.
"""

from __future__ import annotations

import re
import unicodedata

from digest.failure_words import FAILURE_SUBSTRINGS, FAILURE_WORDS

#: role or channel markers: a transcript's speaker labels and chat-template tokens
ROLE_MARKER = re.compile(
    r"(?:^|[\s\"'“„«‹(\[{|>:])(?:system|assistant|user|developer|human|sys|bot|ai|model|"
    r"instructions?|operator|admin|root|"
    r"système|systeme|assistante?|utilisateur|développeur|sistema|asistente|usuario|"
    r"desarrollador|assistent(?:in)?|benutzer|nutzer|entwickler|systeem|gebruiker|"
    r"система|ассистент|пользователь|系统|系統|助手|用户|用戶|开发者|システム|ユーザー|"
    r"시스템|사용자|النظام|المساعد|المستخدم|المطور)\s*[:：]"
    r"|[\[‹<(]\s*/?\s*(?:inst|sys|system|assistant|user|im_start|im_end|endoftext)\s*[\]›>)]"
    r"|[<‹]{2}\s*/?\s*sys\s*[>›]{2}|[<‹]\|[^|\n]{1,30}\|[>›]"
    r"|#{2,}\s*(?:instruction|system|response|assistant|user)"
    r"|\b(?:system|developer|admin)[\s_-]+(?:prompt|message|directive|override|instruction|"
    r"note|update|notice|command)s?\b"
    r"|\b(?:begin|end|new)[\s_-]+(?:of[\s_-]+)?(?:system|instructions?|prompt)\b",
    re.IGNORECASE | re.MULTILINE,
)

#: names of an AI as a sentence would address it (no bare "model" or "agent": tools have
#: models and agents in their ordinary errors)
AI_NAME = re.compile(
    r"\b(?:a\.i\.|assistant|assistante|chat\s?bot|llm|language model|chatgpt|gpt-?\d?|claude|"
    r"gemini|copilot|asistente|modelo de lenguaje|asistente virtual|assistent(?:in)?|"
    r"sprachmodell|assistente|modello linguistico|modèle de langage|ассистент|нейросеть|"
    r"языковая модель)\b"
    r"|(?:the|dear|hey|hi|to|attention|le|la|l'|cher|chère|liebe[rs]?|querido|querida|estimado)"
    r"\s*(?:bot|robot|ai|ia|ki)\b"
    r"|(?-i:\b(?:AI|IA|KI|ИИ)\b)"
    r"|人工智能|人工智慧|助手|助理|机器人|機器人|语言模型|大模型|アシスタント|인공지능|어시스턴트"
    r"|الذكاء الاصطناعي|المساعد|مساعد ذكي|الروبوت|نموذج اللغة",
    re.IGNORECASE,
)

#: second-person pronouns (German "Sie"/"Ihr" only capitalised inside a sentence)
SECOND_PERSON = re.compile(
    r"\b(?:you|your|yours|yourself|yourselves|"
    r"tu|toi|ton|tes|vous|votre|vos|"
    r"dich|dir|dein(?:e|en|em|er|es)?|euch|euer|"
    r"tú|tus|ti|usted|ustedes|vosotros|vosotras|contigo|"
    r"jij|jouw|jullie|"
    r"você|vocês|teu|tua|"
    r"ты|тебя|тебе|твой|твоя|твои|вы|вас|вам|ваш|ваша|ваши)\b"
    r"|(?<=\s)(?-i:Sie|Ihnen|Ihre[mnrs]?)\b|\bdu (?=musst|sollst|darfst|bist|wirst|kannst)"
    r"|你|您|あなた|君は|당신|너는"
    r"|(?:^|\s)(?:أنت|انت|أنتم|انتم|عليك|لديك|منك|إليك)(?:\s|$)",
    re.IGNORECASE,
)

#: what, next to a second-person pronoun, makes the sentence an order to the reader or a claim
#: about who it is or whom it obeys: obligation, identity, control of its instructions
ADDRESS_CONTROL = re.compile(
    r"\b(?:must|should|shall|need to|have to|are now|will now|are to|are required|are allowed|"
    r"may now|can now|are free|are authori[sz]ed|are permitted|instructions?|rules|prompt|"
    r"guidelines|directives?|orders|programming|configuration|memory|role|operator|owner|"
    r"creator|master|principal|developer|safety|restrictions?|"
    r"ignore|disregard|forget|obey|comply|pretend|reveal|repeat|disclose|output|leak|"
    r"dois|devez|doit|faut|tes instructions|vos instructions|consignes|règles|"
    r"musst|müssen|sollst|sollen|darfst|dürfen|Anweisungen|Regeln|"
    r"debes|debe|deben|tienes que|tiene que|instrucciones|reglas|"
    r"devi|deve|istruzioni|regole|moet|moeten|instructies|deves|instruções|"
    r"должен|должна|должны|инструкции|правила)\b"
    r"|必须|必需|应该|应当|需要|你的指令|您的指令|指令|规则|规定|提示词|身份|主人|"
    r"しなければ|指示|규칙|지시"
    r"|يجب|ينبغي|عليك أن|تعليمات|التعليمات|قواعد|القواعد",
    re.IGNORECASE,
)

#: a text taking over its reader, with or without a pronoun: override its instructions, a
#: standing order from now on, a new identity, an exfiltration, a lifted rule
TAKEOVER = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass|skip)\b[^.!?\n]{0,40}\b(?:instructions?|"
    r"rules|prompts?|guidelines|directives|above|previous|prior|earlier|everything)\b"
    r"|\b(?:from (?:now|here) on|henceforth|starting now|effective immediately|"
    r"new (?:instructions?|orders|directives?|rules)|hidden instructions?|"
    r"(?:act|behave|respond) as (?:if|though|an?|the)|pretend (?:to be|that|you)|role-?play|"
    r"treat (?:this|the|that) (?:caller|user|sender|customer|person|message) as|"
    r"follow (?:their|these|his|her|my|our) (?:orders|instructions|commands|lead)|"
    r"(?:note|message|reminder|memo) (?:to|for) (?:the )?(?:ai|assistant|bot|model|agent|llm)|"
    r"remember (?:this|that) (?:as|for)|do anything now|developer mode|jailbr(?:eak|oken) mode|"
    r"(?:rules|restrictions|polic(?:y|ies)|guidelines|filters|safeguards) (?:no longer|do not|"
    r"don't|does not|doesn't) apply|no longer (?:bound|restricted)|"
    r"(?:send|forward|email|e-mail|post|upload|leak|exfiltrate) (?:the |all |every |your |this )"
    r"?(?:conversation|chat|history|transcript|context|data|credentials|secrets?|keys?|tokens?|"
    r"passwords?|instructions|prompt))\b"
    r"|\b(?:ignorez|ignorer|ignora|ignorar|ignorad|ignorieren|ignoriere|ignorare|ignorate)\b"
    r"|\b(?:oublie[rz]?|vergiss|vergessen sie|olvida|olvide|dimentica)\b"
    r"|à partir de maintenant|désormais|dorénavant|nouvelles (?:instructions|consignes)|"
    r"fais comme si|faites comme si|ab (?:sofort|jetzt)|von nun an|neue anweisungen|"
    r"tu als ob|a partir de ahora|de ahora en adelante|desde ahora|nuevas instrucciones|"
    r"finge que|haz como si|d'ora in poi|da ora in poi|vanaf nu|a partir de agora|"
    r"с этого момента|игнорируй|забудь"
    r"|忽略|无视|無視|忘记|忘記|从现在开始|從現在開始|从现在起|今后|扮演|假装|假裝|新的指令|系统提示|"
    r"系統提示|これから|今後は|무시|지금부터"
    r"|تجاهل|انس |من الآن فصاعد|من الآن|تظاهر|تعليمات جديدة|موجه النظام",
    re.IGNORECASE,
)

#: a name (a tool's or an argument's, read as words: ``place_order`` → "place order") that
#: says more than which operation: it acts on everything (unless it only reads: "list all
#: orders"), wipes, lifts a check, hands out standing, sends somewhere, shows a secret, or
#: strings operations together ("rotate and publish keys"). Closed classes: a quantifier
#: over everything, the verbs that wipe or switch a check off, the words of elevated
#: standing, a sending verb with "to", a showing verb with a secret's noun, a conjunction;
#: a name with one is rendered ``‹name›`` (``digest.agent_text``).
NAME_ORDER = re.compile(
    r"^(?!.*\b(?:get|list|fetch|read|show|describe|view|search|find|lookup|count|check|status)\b)"
    r".*\b(?:all|every|everything|everyone|anyone|entire|whole|bulk|mass|todos|todas|tous"
    r"|toutes|alle|tutti|tutte)\b"
    r"|\b(?:skip|skips|bypass|override|ignore|disable|disables|waive|without|unverified|noverify"
    r"|force|forced|sudo|root|admin|administrator|superuser|privileges?|privileged|grant|grants"
    r"|elevate|elevated|impersonate|wipe|purge|erase|destroy|truncate|nuke|leak|exfiltrate"
    r"|and|then)\b"
    r"|\b(?:send|sends|export|forward|upload|copy|share|post|mail|email|sync|mirror|relay"
    r"|publish|dump|push|transmit)\b.*\b(?:to|into)\b"
    r"|\b(?:send|export|forward|upload|copy|share|post|mail|email|publish|dump|reveal|show"
    r"|print|expose|disclose|display)\b.*\b(?:keys?|tokens?|secrets?|passwords?|credentials?"
    r"|passcodes?|pins?|cvv)\b",
    re.IGNORECASE,
)

#: words before a quotation that say it is what someone asked or a page said, not an error
NOT_AN_ERROR = re.compile(
    r"\b(?:task|request(?:ed)?|prompt|asked|asking|question|instruction|page|document|"
    r"website|web ?site|article|user (?:wrote|said|typed|asked)|customer (?:wrote|"
    r"said|typed|asked)|wrote|typed|said|says|saying|told|working on|content|input|query|"
    r"contents|reads|read:|text|comment|review|ticket|note|"
    r"demande|tâche|requête|document|a écrit|a dit|en travaillant sur|"
    r"Aufgabe|Anfrage|Seite|Dokument|Nachricht|schrieb|sagte|Arbeit an|"
    r"tarea|petición|solicitud|página|documento|mensaje|escribió|dijo|trabajando en)\b"
    r"|任务|任務|请求|請求|页面|頁面|文档|文件|消息|用户说|用戶說|写道|寫道|要求"
    r"|المهمة|الطلب|الصفحة|المستند|الرسالة|كتب|قال",
    re.IGNORECASE,
)

#: a postal address: a house number next to a street word, in the languages of the screen
POSTAL = re.compile(
    r"\b\d{1,5}[a-z]?,?\s+(?:[\w'-]+\s+){0,4}(?:street|st\.|avenue|ave\.|road|rd\.|boulevard|"
    r"blvd|lane|drive|way|court|place|square)\b"
    r"|\b\d{1,5},?\s+(?:rue|avenue|boulevard|bd|place|chemin|allée|impasse|calle|avenida|"
    r"plaza|paseo|camino|via|viale|piazza)(?:\s+[\w'-]+){1,3}"
    r"|\b[\w-]*(?:straße|strasse|weg|gasse|platz|allee|ring)\s+\d{1,5}[a-z]?\b"
    r"|[\u4e00-\u9fff]{1,12}(?:路|街|大道)\d{1,5}号"
    r"|شارع\s+\S+(?:\s+\S+)?",
    re.IGNORECASE,
)

#: the shapes of an error, whatever its words: an exception's name or a code in front
#: ("ValidationError:", "E1234:", "ERR_QUOTA", "ENOENT"), an HTTP or SMTP status, "code 42"
#: (case-sensitive)
ERROR_CODE = re.compile(
    r"\b[A-Z]\w*(?:Error|Exception|Fault|Failure|Warning)\b|\bE[A-Z]{3,}\b|\b[A-Z]+_[A-Z0-9_]+\b"
    r"|\b[A-Z]{1,4}-?\d{2,6}\b|\b(?:HTTP|code|status|errno)\b\W{0,3}\d+"
    r"|(?:^|\W)[45]\d\d(?=\s+[A-Z][a-z]|\s+\d\.\d|\s*:)"
)


def _unmarked(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize(
        "NFC", "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn")
    )


def _failure_pattern() -> re.Pattern[str]:
    def word(w: str) -> str:
        return re.escape(_unmarked(w)).replace(r"\*", r"\w*").replace(r"\ ", r"\s+")

    spaced = sorted(FAILURE_WORDS.split("|"), key=len, reverse=True)
    glued = sorted(FAILURE_SUBSTRINGS.split("|"), key=len, reverse=True)
    return re.compile(
        r"(?<!\w)(?:" + "|".join(word(w) for w in spaced) + r")(?!\w)"
        "|" + "|".join(word(w) for w in glued),
        re.IGNORECASE,
    )


_FAILURE = _failure_pattern()


def error_shaped(text: str) -> bool:
    """Does ``text`` read as an error report: a failure's words in any language of the
    screen, or an error's shape (an exception's name, an error code, a status)?"""
    return bool(ERROR_CODE.search(text) or _FAILURE.search(_unmarked(text)))


def failure_span(text: str) -> tuple[int, int] | None:
    """Where ``text`` first reads as an error (an error's shape, or a failure's word in any
    language of the screen), as a span of ``text`` itself; None when it nowhere does."""
    folded: list[str] = []
    at: list[int] = []
    for n, ch in enumerate(text):
        # as ``_unmarked`` folds it, one character at a time, so a match maps back to ``text``
        bare = _unmarked(ch)
        folded.append(bare)
        at += [n] * len(bare)
    spans = [m.span() for m in (ERROR_CODE.search(text),) if m]
    found = _FAILURE.search("".join(folded))
    if found and found.end() > found.start():
        spans.append((at[found.start()], at[found.end() - 1] + 1))
    return min(spans) if spans else None
