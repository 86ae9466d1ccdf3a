"""The error families of inputs, identities and access: details that do not match the record,
a conflict with it, a requirement the tool changed, a permission refused, something not found,
an argument missing, outside the allowed values or in the wrong format.

They are tried after the families of states and preconditions (``digest.model.error_families``):
an order that "cannot be modified" is about its status, not its format, and "invalid" is the
word of last resort.
"""

from __future__ import annotations

from digest.model.error_family import Family
from digest.model.error_family import any_of as _any
from digest.reversal import REVERSAL_PATTERN

#: the families of inputs, identities and access, most specific first
INPUT_FAMILIES: tuple[Family, ...] = (
    Family(
        "mismatch",
        _any(
            r"does not match|doesn't match|do not match|mismatch|(?:should|must) match"
            r"|(?:must|should|needs to) be (?:of )?the same (?:\w+ )?(?:as|for)"
            r"|incorrect (?:pin|code|password|zip|postcode|name|date of birth|answer|details|cvv"
            r"|otp)|verification failed|could not (?:be )?verif|(?:wrong|invalid) (?:pin|otp|"
            r"verification code|cvv)|belongs to (?:another|a different)",
            r"stimmt nicht überein|no coincide|no corresponde|ne correspond pas|não corresponde"
            r"|não confere|non corrisponde",
        ),
        "Confirm the details first",
        "the details given may not match the record",
        "Ask the customer to confirm them instead of retrying with guesses.",
    ),
    Family(
        "conflict",
        _any(
            r"\bconflict|\b409\b|overlap|double[- ]?book|concurrent (?:modification|update)"
            r"|modified by another|version mismatch|precondition failed|\b412\b|locked by",
            r"konflikt|überschneid|conflicto|se superpone|conflit|chevauche|conflito|conflitto",
        ),
        "Re-read the record first",
        "the change may conflict with an existing record",
        "Resolve the conflict with what the record says now instead of retrying the same call.",
    ),
    Family(
        "requirement-changed",
        _any(
            r"no longer (?:accepts?|accepted|supports?|supported|allows?|allowed|requires?|"
            r"exists?)|(?:is|was|has been) (?:deprecated|removed|replaced|renamed|retired)"
            r"|deprecated|instead of"
            # "send 'x' instead", not a value reported as received ("got '2.5' instead")
            r"|(?<!\S)(?<!got )(?<!got a )(?<!got an )(?<!received )(?<!found )\S+ instead\b"
            r"|replaced (?:by|with)|now (?:requires?|expects?"
            r"|only accepts?|accepts only)|renamed to|moved to",
            r"nicht mehr (?:unterstützt|akzeptiert|erlaubt)|stattdessen|ersetzt durch|veraltet"
            r"|ya no se (?:acepta|admite|permite)|en su lugar|reemplazad[oa] por|obsolet"
            r"|n'est plus (?:accepté|pris en charge|supporté)|désormais|à la place|remplacé par"
            r"|não é mais (?:aceit|suportad)|em vez de|substituíd[oa] por|non è più "
            r"(?:accettat|support)|invece di|sostituit[oa] da|deprecat",
            # whatever else says a requirement was removed, replaced or inverted
            REVERSAL_PATTERN,
        ),
        "Send what the tool now asks for",
        "the tool's requirements may have changed",
        "Give the tool what its error asks for; the earlier way of calling it fails the same way.",
    ),
    Family(
        "permission",
        _any(
            r"permission|forbidden|unauthori[sz]ed|\b403\b|not (?:allowed|permitted|authori[sz]ed)"
            r"|access (?:is )?denied|insufficient (?:privileges|rights|scope)|lacks? (?:the )?"
            r"(?:scope|permission|right|role)|\bdenied\b",
            r"keine berechtigung|zugriff verweigert|nicht erlaubt|sin permiso|acceso denegado"
            r"|no autorizad|no (?:está )?permitido|prohibido|accès refusé|non autorisé|interdit"
            r"|acesso negado|não autorizad|sem permissão|proibido|não permitido|accesso negato"
            r"|non autorizzat|vietato|non consentito|権限|アクセス拒否|权限|拒绝访问|无权",
        ),
        "Escalate permission errors to a person",
        "the agent may lack permission for the action",
        "Do not retry it: the same call is refused again.",
    ),
    Family(
        "not-found",
        _any(
            # (a value that "does not exist in" an enum is a value out of range)
            r"not found|\b404\b|does not exist(?![^.;\n]{0,40}\benum\b)|doesn't exist|no such"
            r"|\bunknown\b|no \w+(?: \w+)?"
            r" found\b|no (?:matching|"
            r"record|results?|entry|user|order|customer|account)s? (?:found|for|with|matching)"
            r"|(?:could not|couldn't|cannot|can't|unable to) (?:find|locate)|not recogni[sz]ed"
            r"|did not match any",
            r"nicht gefunden|existiert nicht|unbekannt|no (?:se )?(?:encontr|encuentra)|no existe"
            r"|desconocid|introuvable|n'existe pas|non trouvé|inconnu|não encontrad|não existe"
            r"|desconhecid|non trovat|non esiste|sconosciut|niet gevonden|bestaat niet|onbekend"
            r"|見つかりません|存在しません|找不到|未找到|不存在",
        ),
        "Look up the id instead of guessing",
        "an id may be wrong, mistyped or unknown",
        "Search with what the customer gave and use an id exactly as a lookup returned it.",
    ),
    Family(
        "missing-parameter",
        _any(
            r"missing|\bkey ?error\b|(?:is|are) required|required (?:field|parameter|argument|"
            r"param|property|value|variable|input|option)|(?:field|value|parameter|argument) "
            r"required\b|must (?:provide|specify|include|supply)|not provided"
            r"|(?<!range )(?:is|are|was|were) (?:empty|blank|null)\b"
            r"|(?:cannot|can't|must not|may not) be (?:empty|blank|null)"
            r"|no \w+ (?:provided|given|specified)",
            r"fehlt|erforderlich|pflichtfeld|darf nicht leer|falta|obligatori|requerid|no puede "
            r"estar vací|manquant|requis|ne peut pas être vide|ausente|faltando|não pode (?:estar"
            r"|ser) vazi|mancant|non può essere vuot|必須|缺少|必填|不能为空",
            # Portuguese and French "obligatory", "is required" in Spanish and Italian, and
            # Dutch, the Nordic languages, Polish, Czech, Finnish and Turkish
            r"obrigatóri|obligatoire|se requiere|es necesari|è richiest|ontbreekt|verplicht"
            r"|is vereist|saknas|krävs|obligatorisk|mangler|påkrævet|påkrevd|brakuje|brak "
            r"(?:wymagan|pola|parametru|wartości)|jest wymagan|wymagane|chybí|je povinn|povinn[éý]"
            r"|vyžadován|puuttuu|pakollinen|vaaditaan|\beksik\b|zorunlu|gerekli",
        ),
        "Pass every required argument",
        "a required argument may be missing or empty",
        "Ask the customer for what is missing instead of calling without it.",
        "Pass a value for {arg}",
    ),
    Family(
        "out-of-range",
        _any(
            r"out of range|(?:is|are) (?:earlier|later) than|(?:must|should) be (?:between|one of"
            r"|within|either|before|after|later "
            r"than|earlier than)|not (?:one of|a valid option|in the "
            r"list|an allowed value)|unsupported|not supported|invalid (?:value|option|choice|"
            r"status|type|enum|currency|country|size|class|cabin|reason)|(?:unknown|unrecogni[sz]ed)"
            r" (?:value|option)|expected one of|allowed values|not a valid (?:choice|enumeration)"
            # the values listed ("should be 'low', 'normal' or 'high'", "[type=enum]")
            r"|(?:must|should) be (?:'[^']*'|\"[^\"]*\")(?:, (?:'[^']*'|\"[^\"]*\"))*,? or "
            r"|\[type=(?:enum|literal_error)\]|does not exist in \S{1,60} enum|no enum constant"
            r"|(?:time |date )?range (?:is )?empty|end (?:time |date )?(?:is |must be )?(?:before|"
            r"earlier than) (?:the )?start"
            r"|not a valid enum",
            r"nicht unterstützt|ungültiger wert|außerhalb des bereichs|no soportad|fuera de rango"
            r"|valor no válido|non pris en charge|hors (?:de la )?plage|valeur invalide|não "
            r"suportad|fora do intervalo|valor inválido|non support|fuori intervallo|valore non "
            r"valido",
        ),
        "Use a supported value",
        "a value may be outside what the tool accepts",
        "Check the allowed values before calling instead of trying others at random.",
        "Give {arg} a supported value",
    ),
    Family(
        "bad-format",
        _any(
            r"invalid|malformed|format|must be (?:a|an) |(?:is|are) not valid\b|expected|not a "
            r"valid|(?:could not|unable to|failed to) (?:parse|"
            r"decode)|cannot parse|parse error|unparseable|type ?error|wrong type|not (?:a|an) "
            r"(?:number|integer|string|date)|syntax|must be \d|digits",
            r"ungültig|falsches format|inválid|no válid|formato|invalide|non valide|non valid"
            r"|無効|形式|无效|格式",
        ),
        "Check the argument format first",
        "an argument may be in the wrong format",
        "Convert it to the format the error asks for before calling again.",
        "Check the format of {arg}",
    ),
)
