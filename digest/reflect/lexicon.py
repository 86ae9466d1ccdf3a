"""Injection rules in languages other than English, for the screen (``digest.reflect.screen``).

``RULES`` holds ``(reason, pattern)`` pairs, one per reason of the English screen and script. They
cover German (below), French, Spanish, Portuguese, Italian, Dutch (``lexicon_west``), Polish,
Turkish, Russian, Ukrainian, Arabic, Hindi (``lexicon_east``), Vietnamese, Indonesian, Chinese,
Japanese and Korean (``lexicon_asia``). They judge what a text would make the agent do, not what it
mentions: a tool error that states a restriction or quotes a password, an address or a command
passes; an imperative to drop the rules, reveal or send out data, obey someone else, believe a
looser policy, or run or destroy things does not.

A language is a table of ``NAME regex`` lines giving its words in their natural spelling (a line
starting `` |`` continues the one above: lines break only before an alternative, so no space is
lost). ``_TEMPLATES`` arranges the words into sentences; a template is used when the table has
every ``<NAME>`` it names. The names: QUAL/OLD + NOUN "all/previous" + "instructions"; IGN,
NOFOLLOW, VOID "ignore", "don't follow", "are void"; PROMPT/SECRET what is not to be revealed,
SHOW (ECHO: for prompts only) the verbs; SEND, DATA, RECUR; ROLE, LOGIN, FROMNOW, YOUARE(NOW),
ACTAS, MODE, ON, ENABLE for personas; PN (approvals, checks, limits), NOLONGER, LIFTED, ALLCUST,
GET, PERK, WITHOUT for policies; CMD, RUN; DN (data), ALL, DEL, DB, CALL. A trailing F is the
verb after its object (verb-final word order), a trailing X a whole sentence of that kind.

``~N`` is a gap of at most N characters inside one sentence holding no negation word (``NEG``);
``%N`` the same gap, negations allowed. Requests (``_REQUESTS``) count only when their clause has
no negation before them, nor right after them where the language negates there (``POST``):
"never reveal the password" and "Zeige das Passwort nicht an" are advice. ``send`` is a sending
verb (``SEND``) with two of: data (``DATA``), an address, a recurrence (``RECUR``: "from now on",
"every reply").

Every letter is widened to what the screen's normalisation and views make of it (NFKC, marks
dropped, look-alikes folded to Latin): ``é`` matches ``e`` too, ``й`` ``и``, ``が`` ``か``,
``о`` ``o``, ``ł`` ``l``, simplified Chinese its traditional form; Devanagari vowel signs that are
combining marks become optional. A table with a ``GATE`` (its script) is only tried on text in
that script. Compiling takes about a second, so it happens on first use of ``RULES``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from digest.reflect.lexicon_asia import LANGUAGES as _ASIA
from digest.reflect.lexicon_east import LANGUAGES as _EAST
from digest.reflect.lexicon_west import LANGUAGES as _WEST

__all__ = ["RULES", "rules"]

Rules = tuple[tuple[str, re.Pattern[str]], ...]

_REASONS = {
    "ignore": "asks to ignore instructions",
    "disobey": "asks to ignore instructions",
    "reveal": "asks to reveal secrets",
    "send": "asks to send data out",
    "persona": "changes whom the agent obeys",
    "policy": "asserts a policy change",
    "run": "asks to run a command",
    "destroy": "asks to call a destructive tool",
}
_REQUESTS = ("ignore", "reveal", "run", "destroy")  # and send, built apart (_send)
_TEMPLATES = [
    tuple(line.split(" ", 1))
    for line in r"""
ignore <IGN>~40(?:<QUAL>~30<NOUN>|<NOUN>~25<QUAL>)
ignore <QUAL>~30<NOUN>~30<IGNF>
ignore <IGNX>
disobey <NOFOLLOW>~40(?:<QUAL>~30<NOUN>|<NOUN>~25<QUAL>)
disobey <QUAL>~30<NOUN>~20<NOFOLLOWF>
disobey (?:<OLD>~20<NOUN>|<NOUN>~20<OLD>)%30<VOID>
disobey <DISOBEYX>
reveal <SHOW>~40<OBJ>
reveal <ECHO>~40<PROMPT>
reveal <OBJ>~30<SHOWF>
reveal <REVEALX>
persona <FROMNOW>~30<YOUARE>
persona <YOUARENOW>(?!%25(?:<LOGIN>))~20<ROLE>
persona <ACTAS>~20<ROLE>
persona <ROLE>~20<ACTASF>
persona <MODE>~15<ON>
persona <ENABLE>~15<MODE>
persona <PERSONAX>
policy <NOLONGER>~30<PN>
policy <PN>~30<NOLONGERF>
policy <PN>~30<LIFTED>
policy <ALLCUST>~30<GET>~40(?:\d+\s?%|%\s?\d+|<PERK>)
policy <FROMNOW>~40<WITHOUT>~15<PN>
policy <POLICYX>
run <RUN>~50(?:<CMD>|<SQL>)
run (?:<CMD>|<SQL>)~40<RUNF>
run <RUNX>
destroy <DEL>~30<ALL>~25<DN><NOTMP>
destroy <ALL>~25<DN><NOTMP>~25<DELF>
destroy <DEL>~25<DB>
destroy <DB>~25<DELF>
destroy <CALL>~40<TOOL>
destroy <TOOL>~20<CALLF>
destroy <DESTROYX>
""".strip().splitlines()
]
_SHARED = {
    "OBJ": "<PROMPT>|<SECRET>",
    "ADDR": r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?://\S+|www\.\S+",
    # a tool that deletes, by its name: delete_all_records, drop_database, db.purge
    # (atomic: a long name is read once, not split at each "delete" in it)
    "TOOL": r"(?>(?<![\w.-])(?=[\w.]*[_.])[\w.]*?(?:delete|drop|wipe|purge|truncate|destroy"
    r"|erase|nuke)[\w.]*+)",
    "SQL": r"\b(?:drop\s+(?:table|database|schema|collection)|truncate\s+table|delete\s+from)\b",
    # "delete all temporary files" destroys nothing worth screening
    "TMP": r"\b(?:tempor|\w*cache|caché|tmp\b|temp\b|zwischengespeichert|provvisor|tijdelijk"
    r"|tymczasow|geçici|sementara|tạm|временн|тимчасов)|مؤقت|अस्थायी|临时|缓存|一時|キャッシュ"
    r"|임시|캐시",
    "NOTMP": r"(?!\W{1,3}(?:<TMP>))",
    "ENNEG": r"\b(?:never|not|don't|do not|no)\b",  # English advice, around Latin-script words
}
_END = r"[.!?](?=\s|$)|[。！？।\n]"  # a sentence ends
_MARKS = r"\"“”„«»()\[\]{}<>|\n。！？；：，、।"  # as does a clause, and at [.!?:;,] + space
_CLAUSE = rf"[.!?:;,](?=\s|$)|[{_MARKS}]"
_START = rf"(?:^|(?<=[.!?:;,]\s)|(?<=[{_MARKS}]))"

# Letters the screen's views may fold to Latin look-alikes before the rules run.
_LOOKALIKE = dict(zip("авгеёкмнопрстухьіїјѕһłđıø", "abreekmhonpctyxbiijshldio", strict=True))
# Simplified Chinese characters of the tables and their traditional forms.
_HANT = dict(
    zip(
        "视无记丢弃绕过规则词说设约听从会废换适时统隐内钥码凭据证环变机泄显输诉给发开复写来转贝传布"
        "录对历话户数资个库邮条后终总员级没陆连将现为装当务狱启进审实确权许额须经销顾获优费脚执运"
        "动里载账号订备项删调应别严绝决远旧临缓认验让这们请还关长样",
        "視無記丟棄繞過規則詞說設約聽從會廢換適時統隱內鑰碼憑據證環變機洩顯輸訴給發開複寫來轉貝傳佈"
        "錄對歷話戶數資個庫郵條後終總員級沒陸連將現為裝當務獄啟進審實確權許額須經銷顧獲優費腳執運"
        "動裡載賬號訂備項刪調應別嚴絕決遠舊臨緩認驗讓這們請還關長樣",
        strict=True,
    )
)


def _table(text: str) -> dict[str, str]:
    """A language table: ``NAME regex`` lines, an indented line continuing the previous one."""
    table: dict[str, str] = {}
    name = ""
    for line in text.strip().splitlines():
        if line[:1].isspace():
            table[name] += line.strip()
        else:
            name, _, value = line.partition(" ")
            table[name] = value.strip()
    # A leading \w* is tried at every character; from a word's start it is the same match.
    return {k: re.sub(r"(^|[|(:])\\w\*", r"\1\\b\\w*", v) for k, v in table.items()}


@cache
def _variants(ch: str) -> str:
    """``ch`` and what normalisation may turn it into, as members of a character class."""
    bare = "".join(
        c for c in unicodedata.normalize("NFD", ch) if unicodedata.category(c) not in ("Mn", "Me")
    )
    found = ch
    for c in (unicodedata.normalize("NFC", bare), _LOOKALIKE.get(ch, ""), _LOOKALIKE.get(bare, "")):
        if len(c) == 1 and c not in found:
            found += c
    return found + _HANT.get(ch, "")


def _widen(match: re.Match[str]) -> str:
    escaped, members, ch = match.groups()
    if escaped:
        return escaped
    if members:  # a character class: add its members' variants
        extra = dict.fromkeys(v for c in members if ord(c) > 127 for v in _variants(c)[1:])
        return f"[{members}{''.join(v for v in extra if v not in members)}]"
    if unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return ch + "?"  # the screen drops combining marks
    found = _variants(ch)
    return found if len(found) == 1 else f"[{found}]"


def _fold(pattern: str) -> str:
    """``pattern`` with each non-ASCII letter widened to its normalised forms (module doc)."""
    return re.sub(r"(\\.)|\[((?:\\.|[^\]\\])+)\]|([^\x00-\x7f])", _widen, pattern)


def _expand(source: str, table: dict[str, str], neg: str) -> str:
    """``source`` with its ``<NAME>`` entries and ``~N``/``%N`` gaps written out."""

    def entry(match: re.Match[str]) -> str:
        return f"(?:{_expand(table.get(match[1]) or _SHARED[match[1]], table, neg)})"

    source = re.sub(r"<([A-Z]+)>", entry, source)
    source = re.sub(r"~(\d+)", lambda m: f"(?:(?!{_END}|{neg}).){{0,{m[1]}}}?", source)
    return re.sub(r"%(\d+)", lambda m: f"(?:(?!{_END}).){{0,{m[1]}}}?", source)


def _body(table: dict[str, str], code: str) -> str:
    """What ``code`` looks like in one language ('' when the table has no words for it)."""
    known = {*table, *_SHARED}
    branches = [
        branch
        for c, branch in _TEMPLATES
        if c == code and all(name in known for name in re.findall(r"<([A-Z]+)>", branch))
    ]
    if not branches:
        return ""
    # Latin-script words start at a word boundary: trying them only there is much faster.
    body = ("" if "GATE" in table else r"\b") + f"(?:{'|'.join(branches)})"
    if code in _REQUESTS and "POST" in table:
        body += "(?!%14(?:<POST>))"
    neg = table["NEG"] + ("|<TMP>" if code == "destroy" else "")
    return _expand(body, table, _expand(neg, table, ""))


def _prefix(neg: str, latin: bool) -> str:
    """From the start of a clause, what precedes a request there: no negation, no clause end."""
    if latin:  # whole words at a time
        return rf"(?:(?!{neg})\w++|(?!{_CLAUSE})\W)*?\b"
    return rf"(?:(?!{_CLAUSE}|{neg}).)*?"


def _send(group: list[dict[str, str]], neg: str, latin: bool) -> str:
    """A sending verb in the clause, then two of: data, an address, a recurrence, in the sentence,
    all in one language. (Any verb at all is looked for first: most clauses have none.)"""
    addr, verbs, each = _expand("<ADDR>", {}, ""), [], []
    for t in group:
        own = _expand(t["NEG"], t, "") + ("|" + _SHARED["ENNEG"] if latin else "")
        gap = f"(?:(?!{_END}|{own}).){{0,200}}?"
        send, data, recur = (_expand(f"<{n}>", t, own) for n in ("SEND", "DATA", "RECUR"))
        verbs.append(f"(?<![/.@-])(?:{send})")  # not inside an address: ".../upload"
        each.append(
            f"(?={_prefix(own, latin)}{verbs[-1]})(?:(?={gap}(?:{data}))(?={gap}(?:{addr}"
            f"|{recur}))|(?={gap}(?:{addr}))(?={gap}(?:{recur})))"
        )
    return f"(?={_prefix(neg, latin)}(?:{'|'.join(verbs)}))(?:{'|'.join(each)})"


@cache
def rules() -> Rules:
    """The compiled rules, built on first use: per reason, one pattern per script."""
    tables = [_table(text) for text in (_DE, *_WEST, *_EAST, *_ASIA)]
    built: list[tuple[str, re.Pattern[str]]] = []
    for reason in dict.fromkeys(_REASONS.values()):
        codes = [code for code, r in _REASONS.items() if r == reason]
        for script in dict.fromkeys(t.get("GATE", "") for t in tables):
            group = [t for t in tables if t.get("GATE", "") == script]
            neg = "|".join(_expand(t["NEG"], t, "") for t in group)
            neg += "" if script else "|" + _SHARED["ENNEG"]
            neg += "|" + _expand("<TMP>", {}, "") if "destroy" in codes else ""
            asked = [b for c in codes if c in _REQUESTS for t in group if (b := _body(t, c))]
            said = [b for c in codes if c not in _REQUESTS for t in group if (b := _body(t, c))]
            if asked:
                said.insert(0, f"{_START}{_prefix(neg, not script)}(?:{'|'.join(asked)})")
            if "send" in codes:
                said.insert(0, f"{_START}{_send(group, neg, not script)}")
            # A script's rules are tried only on a text that has a letter of that script.
            gate = rf"\A(?=.*?{script}).*?" if script else ""
            built.append((reason, re.compile(_fold(f"{gate}(?:{'|'.join(said)})"), re.I | re.S)))
    return tuple(built)


def __getattr__(name: str) -> Rules:
    if name == "RULES":
        return rules()
    raise AttributeError(name)


RULES: Rules  # compiled on first access, through the module __getattr__

# German: the model for the other tables.
_DE = r"""
NEG \b(?:nie|niemals|nicht|kein\w*|keinesfalls|niemand\w*|nirgends)\b
POST \b(?:nicht|nie|niemals|keinesfalls)\b
QUAL \b(?:vorherig|bisherig|obig|vorangegangen|vorig|früher|sämtlich|ursprünglich|alle|alten|dein
 |ihr|eure|system)\w*
OLD \b(?:vorherig|bisherig|obig|vorangegangen|vorig|früher|ursprünglich|alt|dein|ihr)\w*
NOUN \w*(?:anweisung|instruktion|regeln|vorgabe|richtlinie|befehle|prompt|anordnung|direktive)\w*
IGN \b(?:ignorier\w*|vergiss|vergesst|vergessen sie|missacht\w*|übergeh\w*|verwirf|verwerf(?:t
 |en sie)|umgeh\w*)\b
IGNF (?<!\bzu )\b(?:ignorieren|vergessen|missachten|verwerfen)\b|\bau(?:ß|ss)er kraft
IGNX \b(?:vergiss|vergesst|vergessen sie|ignorier\w*)\b~10\balles\b~30(?:gesagt|oben|bisher|zuvor
 |vorher|gelernt)
NOFOLLOW \b(?:befolg|beacht|gehorch)\w*%10nicht (?:mehr|länger)
NOFOLLOWF \bnicht (?:mehr|länger)~20\b(?:befolg|beacht|gehorch|einhalt)\w*
DISOBEYX \b(?:befolg|beacht|gehorch)\w*~40<NOUN>%20nicht (?:mehr|länger)
VOID \b(?:sind|gelten|gilt|ist|wurden|wurde|werden)\b%30(?:nicht (?:mehr|länger)|ungültig|aufgehoben
 |veraltet|ersetzt|obsolet|hinfällig|widerrufen|annulliert|au(?:ß|ss)er kraft)
PROMPT system-?prompt|systemnachricht|system-?anweisung\w*|(?:versteckt|verborgen|geheim|intern
 |vertraulich|ursprünglich)\w* (?:anweisung|instruktion|prompt|konfiguration|einstellung|regel)\w*
 |\b(?:dein|ihr|euer)e?[nms]? (?:konfiguration|einstellungen|anweisungen|instruktionen|prompt|regeln
 |systemprompt)
SECRET \w*(?:passwort|passwört|kennwort|kennwört)(?:er|e|s)?\b|zugangsdaten|anmeldedaten
 |\w*api-?(?:schlüssel|keys?)\b|\w*(?:zugangs|zugriffs|access|auth|bearer|api|sitzungs)-?tokens?\b
 |\b(?:dein|ihr)e?n? tokens?\b|umgebungsvariable\w*|\bsecrets?\b|geheimnisse?\b|private?n? schlüssel
SHOW \b(?:zeig(?:e|t|en sie)?|verrat(?:e|et|en sie)?|nenn(?:e|t|en sie)?|druck(?:e|t|en sie)?
 |sag(?:e|t|en sie)?|post(?:e|en sie)|gib (?:mir|uns)|geben sie (?:mir|uns))\b
ECHO \b(?:wiederhol(?:e|t|en sie)?|schreib(?:e|t|en sie)?)\b
SHOWF \b(?:ausgeben|offenlegen|preisgeben)\b
REVEALX \b(?:gib|gebt|geben sie)\b~40<OBJ>~20\b(?:aus|preis|weiter)\b|\bleg(?:e|t
 |en sie)?\b~40<OBJ>~20\boffen\b|\bteil(?:e|t|en sie)?\b~40<OBJ>~20\bmit\b|\b(?:mir
 |uns)\b~40<OBJ>~30\b(?:zeigen|verraten|nennen|sagen|geben|ausgeben|mitteilen|offenlegen|preisgeben
 |schicken|senden)\b
SEND \b(?:send(?:e|et|est|en sie)|schick(?:e|t|en sie)?|kopier(?:e|t|en sie)|übermittl(?:e|t)
 |übermitteln sie|übertrag(?:e|t|en sie)|überträgt|post(?:e|et|en sie)|weiterleiten|hochladen|bcc|cc
 |blindkopie)\b|\b(?:leite|leitet|leiten sie)\b~60\bweiter\b|\b(?:lade|ladet|laden sie)\b~40\bhoch\b
 |\b(?:senden|schicken|übermitteln|kopieren)(?=\s*(?:[.!;]|$))
DATA gespräch\w*|konversation\w*|unterhaltung\w*|\w*verlauf\w*|historie|transkript\w*|(?:kunden
 |nutzer|benutzer|personen|zugangs|anmelde|konto|zahlungs|kreditkarten)daten
 |personenbezogene\w* daten|\w*datensätze|\w*datenbank\w*|kundenliste|alle (?:daten|nachrichten
 |e-?mails|antworten|bestellungen|kunden)|jede (?:nachricht|antwort)|passwörter|\balles\b
RECUR ab (?:sofort|jetzt)|von nun an|künftig|zukünftig|(?:bei )?jede[rnms]? (?:antwort|nachricht
 |mail|e-mail|anfrage)|(?:bei )?allen (?:antworten|nachrichten)|\bimmer\b|jedes mal|\bstets\b
ROLE \w*(?:administrator|\badmin\b|\broot\b|superuser|\bdan\b|ohne (?:jede )?(?:einschränkung|regeln
 |filter|grenzen|zensur)|uneingeschränkt|ungefiltert|unzensiert)\w*
LOGIN angemeldet|eingeloggt|verbunden|registriert
FROMNOW \b(?:ab (?:sofort|jetzt|heute)|von nun an|künftig|zukünftig)\b
YOUARE \b(?:bist du|sind sie|gehorch\w*|hörst du|hören sie|arbeitest du für|arbeiten sie für
 |dienst du|befolgst du)\b
YOUARENOW \b(?:du bist|sie sind|ihr seid) (?:jetzt|nun|ab sofort|ab jetzt|von nun an)\b
ACTAS \b(?:handle|handeln sie|agiere|agieren sie|verhalte dich|verhalten sie sich|fungiere
 |fungieren sie|tritt|treten sie)\b~10\b(?:als|wie)\b|\bspiel\w*~20\brolle\b
PERSONAX \b(?:deine|ihre) neue rolle|\btu so,? als|\btun sie so,? als|\b(?:gib
 |geben sie) vor~30\bzu sein\b|\b(?:du arbeitest|sie arbeiten) (?:jetzt |ab sofort )?nicht (?:mehr
 |länger) für|\b(?:gehorche|gehorchen sie|hör|höre|hören sie)\b~10\b(?:nur noch|ab sofort|ab jetzt
 |nur|ausschließlich)\b~10\b(?:mir|auf mich|auf uns|uns)\b|\bjailbr(?:ea|o)k
MODE \b(?:entwickler|developer|gott|god|jailbreak|dan)-?modus\b
ON \b(?:aktiviert|aktiv|an|eingeschaltet|freigeschaltet)\b
ENABLE \b(?:aktivier|schalte)\w*
PN \w*(?:genehmigung|freigabe|zustimmung|bestätigung|prüfung|verifizierung|verifikation
 |authentifizierung|autorisierung|identifizierung|legitimation|limit|obergrenze|höchstgrenze
 |beschränkung|begrenzung|erlaubnis|kontrolle|nachweis|quittung|beleg|kassenbon)\w*
POLICYX \bkeine?[nrm]?\b~15<PN>~15\bmehr\b~20\b(?:nötig|notwendig|erforderlich|benötigt|verlangt
 |gebraucht|vorgeschrieben)|\b(?:benötig|brauch|erforder
 |verlang)\w*~20\bkeine?[nrm]?\b~15<PN>~15\bmehr\b
NOLONGERF \b(?:ist|sind|wird|werden)\b%20(?:nicht (?:mehr|länger)|ab sofort nicht
 |künftig nicht)%20(?:nötig|erforderlich|notwendig|vorgeschrieben|verpflichtend|gefordert|verlangt
 |in kraft)
LIFTED \b(?:wurde|wurden|ist|sind|wird|werden)\b~20\b(?:aufgehoben|abgeschafft|entfernt|gestrichen
 |ausgesetzt|entfallen)|\bentfällt
ALLCUST \b(?:alle|jede[rmn]?)\s\w*kund\w*
GET \b(?:erhält|erhalten|bekommt|bekommen|steht|stehen|haben anspruch|hat anspruch)\b
PERK \d+\s?prozent|rabatt|erstattung|gutschrift|kostenlos|gratis|geld zurück
WITHOUT \bohne\b
CMD \w*(?:befehl|kommando|skript|script|shell|terminal|konsole|bash|powershell)\w*
RUN \bführ(?:e|t|st|en sie)?\b|\bstart(?:e|et|en sie)\b
RUNF (?<!\bzu )\b(?:ausführen|starten|laufen lassen)\b
RUNX \blade\b~40\bherunter\b~40\b(?:führ|start)\w*
DN \w*(?:daten|datensätze|einträge|kunden|benutzer|nutzer|konten|dateien|tabellen|backups
 |sicherungen|bestellungen|nachrichten|e-mails|mails|protokolle|logs|ordner|verzeichnisse|projekte
 |datenbanken)\b
ALL \b(?:alle|sämtliche|(?:die|das|den) (?:gesamten?|kompletten?|ganzen?))\b
DEL \b(?:lösch(?:e|t|st|en sie)?|entfern(?:e|t|en sie)|vernicht(?:e|en sie)|leer(?:e|t|en sie))\b
DB \w*(?:datenbank|tabellen?|backups?|sicherungen|repository|bucket)\b
DELF (?<!\bzu )\b(?:löschen|leeren|vernichten|droppen)\b(?!\s*\?)
CALL \b(?:ruf(?:e|t|en sie)?|verwende|verwenden sie|nutze|nutzen sie|benutze|benutzen sie|start(?:e
 |en sie))\b
CALLF \baufrufen\b
"""
