"""The error families of states and preconditions: a session expired, a balance short, a
payment declined, offers that do not combine, stock or dates unavailable, amounts that do not
add up, a duplicate, a step already done or done too late, a status that does not allow it,
eligibility, expiry; and, last, limits and delivery areas (``digest.model.error_limit_families``).

They are tried before the families of inputs (``digest.model.error_input_families``): an
order that "cannot be modified" is about its status, not its format. The order every family
is tried in, and how an error is read for one, is ``digest.model.error_families``.
"""

from __future__ import annotations

from digest.model.error_family import Family
from digest.model.error_family import any_of as _any
from digest.model.error_limit_families import LIMIT_FAMILIES

#: the families of states and preconditions, most specific first
STATE_FAMILIES: tuple[Family, ...] = (
    Family(
        "authentication",
        _any(
            r"authenticat|\b401\b|not (?:logged|signed) in|sign[- ]?in required|re-?login"
            r"|requires? (?:a )?log ?in\b|log ?in required|redirected to \S*log ?in",
            r"(?:token|session|credentials?|api[ _-]?key|login)\b[^.;\n]{0,30}?\b(?:expired|"
            r"invalid|revoked|missing)|(?:invalid|expired|missing|revoked) (?:access )?(?:token|"
            r"session|credentials?|api[ _-]?key)",
            r"nicht angemeldet|anmeldung erforderlich|no autenticado|sesión (?:expirada|caducada)"
            r"|non authentifié|session expirée|não autenticado|sessão expirada|non autenticato"
            r"|sessione scaduta",
        ),
        "Refresh the credentials or escalate",
        "the tool's credentials or session may be invalid or expired",
        "Retrying with the same credentials fails the same way; escalate to a person when they "
        "cannot be refreshed.",
    ),
    Family(
        "insufficient-funds",
        _any(
            r"insufficient\b[^.;\n]{0,25}?\b(?:funds|balance|credit|points)|not enough (?:funds|"
            r"balance|credit|money|points)|balance (?:is )?(?:not enough|too low|insufficient)"
            r"|(?:exceeds?|more than) (?:the )?(?:available |remaining )?(?:balance|credit)"
            r"|balance (?:would|will) (?:become|go|be) negative|negative balance"
            r"|balance\b[^;\n]{0,30}?\b(?:is )?(?:less|lower|smaller) than"
            r"|balance\b[^;\n]{0,30}?\b(?:is )?not (?:enough|sufficient)",
            r"(?:unzureichend|nicht genügend|zu wenig)\w* (?:guthaben|deckung)|saldo insuficiente"
            r"|fondos insuficientes|solde insuffisant|fonds insuffisants|saldo insufficiente"
            r"|fondi insufficienti|残高不足|余额不足",
        ),
        "Check the balance first",
        "a payment method's balance may not cover the amount",
        "When it does not, ask the customer for another payment method or a smaller amount "
        "instead of retrying.",
    ),
    Family(
        "payment-declined",
        _any(
            r"(?:card|payment|transaction|charge)s? (?:was |were |has been |is )?(?:declined|"
            r"refused|rejected)|\bdeclined\b|do not honou?r",
            r"(?:zahlung|karte) abgelehnt|(?:pago|tarjeta) rechazad|(?:paiement|carte) refusée?"
            r"|(?:pagamento|cartão) recusad|pagamento rifiutato",
        ),
        "Confirm the payment method",
        "a payment may be declined",
        "Do not retry a declined payment unchanged; ask the customer for another way to pay.",
    ),
    Family(
        "amounts-do-not-add-up",
        _any(
            r"(?:do(?:es)?n'?t|do(?:es)? not|did not|didn't) (?:add|sum|total) up|(?:do(?:es)?"
            r"n'?t|do(?:es)? not|must|should|needs? to) (?:add up|sum|total) (?:up )?to\b"
            r"|(?:do(?:es)?n'?t|do(?:es)? not|must|should|needs? to) (?:equal|match) the (?:\w+ )?"
            r"(?:total|sum|balance|amount due)|(?:total|sum|amounts?|split|allocation)s?\b[^.;\n]"
            r"{0,40}?\b(?:mismatch|do(?:es)? not balance|unbalanced)|\bout of balance\b|\btotal\b"
            r"[^.;\n]{0,30}?\bis \S+,? but (?:only )?(?:paid|charged|allocated|received|given)",
            r"(?:summe|beträge|betrag)\w*\b[^.;\n]{0,30}?(?:ergeben nicht|stimm\w* nicht mit "
            r"(?:dem|der) (?:gesamt|summe))|no (?:cuadra|suma(?:n)? el total)|(?:la suma|los "
            r"importes|el importe)\b[^.;\n]{0,30}?no coincide con el total|ne correspond\w* pas "
            r"au (?:total|montant total)|la somme ne correspond|(?:a soma|os valores)\b[^.;\n]"
            r"{0,30}?não (?:corresponde|bate)\w* com o total|la somma non corrisponde al totale",
        ),
        "Split the payments to match the total",
        "the amounts paid may not match the total",
        "Check the total first, then split it so that the amounts match it exactly before "
        "calling again.",
    ),
    Family(
        "not-combinable",
        _any(
            r"cannot be combined|can ?not be used (?:together |in combination )?with|not "
            r"combinable|(?:is|are) not stackable|only one (?:coupon|discount|promo\w*|offer|"
            r"voucher|code|certificate)s? (?:per|can|may|is)|mutually exclusive",
            r"nicht kombinierbar|no (?:es )?acumulable|no se pueden? combinar|non cumulable"
            r"|ne peu(?:t|vent) pas être combiné|não (?:é )?cumulativ|não pode(?:m)? ser combinad"
            r"|non cumulabil",
        ),
        "Check that offers combine first",
        "offers, codes or options may not combine",
        "Apply the one that helps the customer most and say that the others cannot be added.",
    ),
    Family(
        "out-of-stock",
        _any(
            r"out of stock|sold out|not in stock|no (?:stock|inventory)|insufficient (?:stock|"
            r"inventory)|back-?order|discontinued|(?:left|remaining) in stock",
            r"(?:item|product|variant|article|size|colou?r)s?\b[^.;\n]{0,40}?\b(?:is |are )?"
            r"(?:unavailable|not available|not found or available)",
            r"nicht (?:auf lager|vorrätig|lieferbar)|ausverkauft|agotad|sin (?:stock|existencias)"
            r"|rupture de stock|épuisé|esgotad|sem estoque|fora de estoque|esaurit|uitverkocht"
            r"|niet op voorraad|在庫切れ|在庫なし|品切れ|缺货|库存不足|售罄",
        ),
        "Check stock first",
        "an item may be out of stock or unavailable",
        "When it is not, tell the customer and offer an available alternative instead of retrying.",
    ),
    Family(
        "unavailable-date",
        _any(
            r"not available (?:on|for|at|in|from|between|during)|unavailable (?:on|for|at|"
            r"between)|no (?:availability|seats?|rooms?|tables?|slots?|vacanc(?:y|ies)|"
            r"appointments?|capacity|space)\b|no \w+(?: \w+)? available\b|(?:is|are) "
            r"(?:now )?(?:full|fully booked|at capacity)\b|not enough (?:seats?|rooms?|tables?|"
            r"slots?|capacity"
            r"|space|availability)|fully booked|booked up|(?:slot|seat|room|table|time) (?:is |"
            r"was )?(?:taken|occupied|already booked)|(?:is|are|was) (?:already )?(?:taken|"
            r"occupied|allocated)\b",
            r"ausgebucht|keine (?:plätze|zimmer|termine|verfügbarkeit)|nicht verfügbar (?:am|für)"
            r"|aucune? \w+(?: \w+)? (?:n'est )?disponible|kein(?:e|en)? \w+(?: \w+)? (?:mehr )?"
            r"(?:verfügbar|frei)\b|no hay \w+(?: \w+)? disponibles?|ningún \w+ disponible"
            r"|nessun[ao]? \w+(?: \w+)? disponibil|nenhum[a]? \w+(?: \w+)? disponíve|geen \w+"
            r"(?: \w+)? (?:beschikbaar|vrij)\b"
            r"|no hay (?:disponibilidad|plazas|asientos|habitaciones|mesas)|sin disponibilidad"
            r"|no disponible (?:el|para)|aucune disponibilité|plus de places|(?:pas |in)disponible"
            r" (?:le|pour)|sem disponibilidade|não há (?:vagas|lugares)|indisponível (?:em|para)"
            r"|nessuna disponibilità|non disponibile (?:il|per)|\bocupad[oa]s?\b|\boccupée?s?\b"
            r"|\bbesetzt\b|\boccupat[oi]\b|\bbezet\b",
            r"(?:está|esta) complet[oa]|\best complet|al completo|lotad[oa]|volgeboekt|is vol\b"
            r"|geen (?:plaatsen|plekken)|fullbokad|är full\b|inga lediga|fuldt booket|fullbooket"
            r"|ingen ledige|brak wolnych|brak miejsc|jest pełn|plně obsazen|žádná volná"
            r"|není (?:volné|volný|volná)|täynnä|ei vapaita|dolu\b|boş yer yok",
        ),
        "Check availability first",
        "the date, time or seats asked for may be unavailable",
        "Offer the customer other dates, times or options instead of retrying the same request.",
    ),
    Family(
        "insufficient-amount",
        _any(
            r"(?:insufficient|not enough|too few) (?!(?:privileges|rights|scope|permissions?|"
            r"funds|balance|credit|stock|inventory)\b)\w+|no \w+ (?:remaining|left)\b|\w+ "
            r"(?:exhausted|used up|depleted)\b",
            r"nicht (?:ausreichend|genügend|genug)|unzureichend|insuffisant|pas assez (?:de|d')"
            r"|insuficiente|no hay suficiente|insufficiente|non (?:basta|sufficiente)|onvoldoende"
            r"|niet genoeg|(?:crédito|credito|crédit|saldo|solde|guthaben)\w* (?:\w+ )?"
            r"(?:non )?(?:insufficient|insuficiente|insufficiente|insuffisant)",
            # "no X left" as the other languages say it
            r"no quedan|não (?:restam|há mais)|il ne reste (?:plus|aucun)|non (?:ci sono più|"
            r"restano)|keine \w+ mehr\b|geen \w+ meer\b|inga \w+ kvar|ingen \w+ (?:tilbage|"
            r"igjen)|nie (?:ma|zostało) już|(?:už )?nezbývají|ei (?:ole )?enää|hiç \w+ kalmadı",
        ),
        "Check what is left first",
        "what is left may not cover the request",
        "When it does not, tell the customer what is left and offer what it covers instead of "
        "retrying.",
    ),
    Family(
        "duplicate",
        _any(
            r"already exists?|duplicate|already (?:registered|taken|in use|added|on file|linked|"
            r"subscribed|enrolled|listed|saved|stored|present|included|a member)|exists already"
            r"|already (?:has|have|contains?|includes?) (?:an? |the |this )?(?!\d)\w+"
            r"|already (?:in|on|part of) (?:the |this |that |your |its )?\w+"
            r"|not unique",
            r"existiert bereits|bereits vorhanden|ya existe|duplicad|existe déjà|en double"
            r"|já existe|esiste già|duplicat",
        ),
        "Look for an existing record first",
        "the record may already exist",
        "Use or update the existing one instead of creating it again.",
    ),
    Family(
        "already-done",
        _any(
            r"already (?:been )?(?:cancel+ed|refunded|returned|exchanged|shipped|delivered|"
            r"processed|paid|completed|closed|used|redeemed|applied|confirmed|checked[ -]in|"
            r"booked|submitted|approved|modified|archived|deleted|removed|activated|deactivated"
            r"|paused|suspended|resumed)|(?:is|was|has) already",
            r"bereits (?:storniert|erstattet|versandt|geliefert|bezahlt|verwendet|eingelöst|"
            r"abgeschlossen|pausiert)|ya (?:ha sido |fue |está |estaba )?(?:cancelad|reembolsad|"
            r"enviad|entregad|pagad|usad|canjead|procesad)|déjà (?:été )?(?:annul|rembours|"
            r"expédi|livr|pay|utilis|trait)|já (?:foi |está )?(?:cancelad|reembolsad|enviad|"
            r"entregue|pag|usad|processad)|già (?:stat[oa] )?(?:annullat|rimborsat|spedit|"
            r"consegnat|pagat|usat)|既に|すでに|済み|已经?(?:取消|退款|发货|使用|支付)",
        ),
        "Check whether it is already done",
        "the request may already be done",
        "When it is already done, tell the customer instead of repeating it.",
    ),
    Family(
        "must-differ",
        _any(
            r"must (?:be )?differ|(?:must|should) be different|(?<!be )(?<!be the )(?<!be of the )"
            r"same as (?:the )?(?:current|"
            r"existing|original|old|previous)|identical to|nothing to (?:update|change)|cannot"
            r" be the same|(?:must|should) not be the same|no changes? (?:to apply|detected|made)",
            r"muss sich unterscheiden|(?:darf|dürfen) nicht (?:gleich|identisch)|deben? ser "
            r"diferente|doi(?:t|vent) être différent|devem? ser diferente|devono essere divers"
            r"|deve essere divers",
        ),
        "Change the value first",
        "the change may repeat what is already set",
        "Ask the customer what should change when the request matches what is already there.",
        "Give {arg} a new value",
    ),
    Family(
        "too-late",
        _any(
            r"after (?:booking|purchase|checkout|departure|check-?in|shipping|shipment|delivery|"
            r"the deadline)|too late|(?:deadline|cut-?off|window|period)\b[^.;\n]{0,30}?\b"
            r"(?:passed|expired|closed|over|elapsed|exceeded)|past (?:the )?(?:deadline|"
            r"cut-?off)|outside (?:the )?(?:\w+ )?(?:window|period)|(?:require|need)s? (?:a |an )?"
            r"\S+ notice|no longer (?:be )?(?:cancel|modif|chang|return|refund)|(?:is|are|was|lies"
            r"|falls) in the past|less than \d+ ?\w* (?:before|prior to|ahead of)"
            r"|must (?:be )?(?:today or )?(?:a |in the )?future|(?:cannot|can't|must not|may not)"
            r" be in the past",
            r"zu spät|frist (?:abgelaufen|überschritten)|nach (?:der )?buchung|demasiado tarde"
            r"|plazo (?:vencido|expirado)|después de (?:la )?reserva|trop tard|délai (?:dépassé|"
            r"expiré)|après (?:la )?réservation|tarde demais|prazo (?:expirado|vencido)|após a "
            r"reserva|troppo tardi|termine scaduto|dopo la prenotazione|in der vergangenheit"
            r"|dans le passé|en el pasado|nel passato|no passado|in het verleden|moins de \d+ ?\w*"
            r" avant|weniger als \d+ ?\w* vor|menos de \d+ ?\w* antes|meno di \d+ ?\w* prima"
            r"|minder dan \d+ ?\w* voor",
        ),
        "Check the time window first",
        "the time window for the change may have passed",
        "Past the window, explain the rule to the customer; retrying does not help.",
    ),
    Family(
        "missing-prerequisite",
        _any(
            r"(?:has|have) no (?:active |valid )?(?:membership|subscription|account|plan|"
            r"insurance|loyalty|coverage|license|refills?)|no (?:active |valid )?(?:membership|"
            r"subscription|insurance|coverage|refills?)\b|not (?:a member of|in) (?:the |this )?"
            r"(?:channel|group|team|project|workspace|organi[sz]ation|room|conversation)\b"
            r"|not (?:a )?(?:member|subscriber|"
            r"enrolled|registered|subscribed)\b|requires? (?:a |an )?(?:active |valid )?(?:\w+ )?"
            r"(?:membership|subscription|account|plan|license)|(?:membership|subscription|plan) "
            r"(?:is )?(?:required|needed)|without (?:a |an )?(?:active )?(?:membership|"
            r"subscription)",
            r"keine (?:aktive )?(?:mitgliedschaft|abonnement)|kein (?:mitglied|abo)|sin "
            r"(?:membresía|suscripción)|no (?:es|tiene) (?:miembro|membresía|suscripción)"
            r"|pas (?:d'abonnement|membre)|aucun abonnement|non (?:membre|abonné)|sem "
            r"(?:assinatura|associação)|não é (?:membro|assinante)|nessun abbonamento|non è "
            r"(?:membro|abbonato)",
        ),
        "Check the membership first",
        "the customer may lack the membership, account or plan it requires",
        "Explain what the customer is entitled to instead of retrying.",
    ),
    Family(
        "missing-record",
        _any(
            r"(?:has|have) no \w+(?: \w+)? (?:on file|registered|linked|attached|set up|configured"
            r"|saved)\b|no \w+(?: \w+)? (?:on file|registered|linked) (?:for|to|with)|(?:does not"
            r"|doesn't|do not) have (?:an? |any )?\w+(?: \w+)? (?:on file|registered|linked|"
            r"attached|set up|configured|saved)\b",
            r"n'a (?:pas de|aucune?) \w+|no tiene (?:\w+ )?(?:registrad|asociad|vinculad)\w*"
            r"|hat kein\w* \w+ (?:hinterlegt|registriert)|non ha (?:\w+ )?(?:registrat|associat)"
            r"\w*|não tem (?:\w+ )?(?:registrad|cadastrad)\w*|heeft geen \w+",
        ),
        "Check the record has what it needs first",
        "the record may lack what the call needs",
        "Ask the customer for what is missing or complete the record first instead of retrying.",
    ),
    Family(
        "prerequisite-step",
        _any(
            r"must (?:first )?be \w+(?:ed|en) (?:first|before)|(?:has|have|with) (?:an? )?"
            r"(?:outstanding|unpaid|overdue|open) (?:balance|bill|invoice|amount)|(?:is|are|has "
            r"not been|have not been) not (?:yet )?(?:verified|confirmed|activated|approved)\b"
            r"|not (?:yet )?(?:been )?(?:verified|confirmed|activated|approved)\b|requires? "
            r"(?:prior )?(?:verification|approval|confirmation|activation)\b"
            r"|(?:commit|stash|save|discard) (?:your |the |all )?(?:local )?changes\b[^.;\n]{0,30}?"
            r"\bbefore\b",
            r"muss zuerst|offener (?:saldo|betrag)|nicht (?:verifiziert|bestätigt|aktiviert)"
            r"|debe (?:ser \w+ )?primero|saldo pendiente|no (?:verificad|confirmad|activad)"
            r"|doit d'abord|solde impayé|non (?:vérifié|confirmé|activé)|deve primeiro|saldo "
            r"devedor|não (?:verificad|confirmad|ativad)|deve prima|saldo insoluto|non "
            r"(?:verificat|confermat|attivat)",
            r"niet (?:geverifieerd|bevestigd|geactiveerd)|(?:är )?inte (?:verifiera[dt]|"
            r"bekräfta[dt]|aktivera[dt])|ikke (?:verificeret|bekræftet|aktiveret|verifisert"
            r"|bekreftet|aktivert)"
            r"|nie (?:jest )?(?:zweryfikowan|potwierdzon|aktywowan)|není (?:ověřen|potvrzen|"
            r"aktivován)|ei ole (?:vahvistettu|aktivoitu)|doğrulanmamış|onaylanmamış",
        ),
        "Complete the prerequisite first",
        "a prerequisite of the call may be unmet",
        "Complete what the error names as a prerequisite, then call again.",
    ),
    Family(
        "status-does-not-allow",
        _any(
            r"does not allow (?:changes|modifications|updates|cancel\w*)|(?:cannot|can't|can not"
            r"|may not|could not) be (?:modified|changed|updated|edited|cancel+ed|refunded|"
            r"returned|exchanged|upgraded|downgraded|transferred|resumed|paused)|not (?:modifiable|"
            r"editable|changeable|refundable|cancel+able|returnable|exchangeable|transferable)"
            r"|non-?(?:refundable|modifiable|changeable|returnable|transferable|cancel+able|"
            r"pending|delivered)\b|(?:is|are) (?:locked|read-only|immutable|final)\b|in (?:status"
            r"|state)\b|(?:status|state) (?:is|must be)|only \w+(?: \w+)? (?:orders?|bookings?|"
            r"reservations?|items?|requests?|accounts?) can",
            # a state named ("is lapsed", "has a status of canceled", "while the line is
            # suspended") or an action a state refuses ("cannot be captured"): any participle
            # but those that say it was not found, read or valid, or of another family
            r"(?:has|with|in) (?:a |the )?(?:status|state) (?:of|=)|unexpected state|invalid state"
            r"|(?:is|are) not (?:currently )?(?:active|pending|open|suspended|enabled|live|running"
            r"|paused|in progress|ready|delivered|shipped|paid)\b|(?:cannot|can't|can not|unable "
            r"to) (?:cancel|modify|change|update|edit|refund|return|exchange|delete|remove|resume|"
            r"suspend|pause|transfer|upgrade|downgrade|reopen|close|capture|void|ship|book|assign"
            r"|approve) (?:an? |the |this )?[\w-]+(?: [\w-]+)? (?:that|which|with|while|because"
            r"|since|after|once|in)\b"
            r"|(?:is|are|was|has been) (?:currently )?(?:lapsed|inactive|suspended|frozen|blocked"
            r"|closed|canceled|cancelled|terminated|deactivated|disabled|on hold|archived)\b"
            r"|(?:has|have) (?:closed|ended)\b"
            r"|(?:cannot|can't|can not|may not|could not) be (?!(?:found|located|identified|"
            r"recogni[sz]ed|resolved|parsed|decoded|read|verified|validated|authenticated|"
            r"authori[sz]ed|combined|reached|determined|matched|delivered|shipped|used|applied|"
            r"processed|completed|performed|executed|created|saved|sent|loaded|retrieved|fetched"
            r"|generated|written|opened|connected|started|empty|blank|null)\b)\w+(?:ed|en|t)\b"
            r"|(?:does not|doesn't|do not) (?:allow|accept|permit) (?:\w+ )?(?:changes|"
            r"modifications|updates|operations|transactions|cancel\w*|edits|transfers|payments)",
            r"kann nicht (?:mehr )?(?!gefunden|gelesen|verarbeitet)\w+ werden|kan niet (?:meer )?"
            r"worden (?!gevonden)\w+|ne peu(?:t|vent) (?:pas|plus) être (?!trouvé|vide|lu)\w+"
            r"|no (?:se )?pueden? (?:ya )?ser (?!encontrad)\w+|non (?:può|possono) (?:più )?essere "
            r"(?!trovat|vuot|lett)\w+|não pode(?:m)? (?:mais )?ser (?!encontrad|vazi)\w+"
            r"|(?:está|estaba) (?:bloquead|suspendid|cancelad|cerrad|inactiv|congelad)|ist "
            r"(?:gesperrt|gekündigt|inaktiv|deaktiviert|geschlossen|eingefroren)|est (?:bloqué|"
            r"suspendu|résilié|clôturé|inactif|gelé|fermé)|è (?:bloccat|sospes|chius|disattivat|"
            r"congelat)|no admite (?:\w+ )?operaciones|n'(?:admet|accepte) (?:pas|aucune) "
            r"(?:d')?opérations?|non (?:ammette|consente) (?:\w+ )?operazioni",
            # a state named in Portuguese, Dutch, the Nordic languages, Polish, Czech, Finnish
            # and Turkish ("está bloqueado", "is geblokkeerd", "är stängd för underhåll")
            r"está (?:fechad|encerrad|suspens)|is (?:gesloten|geblokkeerd|vergrendeld|"
            r"opgeschort)|är (?:stängd|låst|spärrad|avstängd)|er (?:lukket|låst|spærret|stengt|"
            r"sperret)|jest (?:zamknięt|zablokowan|zawieszon)|(?:je|byl[ao]?) (?:uzavřen|"
            r"zablokován|zamčen|pozastaven|ukončen)|on (?:suljettu|lukittu|estetty)"
            r"|(?:kapalı|kilitli|askıya alın)",
            r"kann nicht (?:geändert|storniert|erstattet|zurückgegeben) werden|nicht (?:änderbar|"
            r"stornierbar|erstattungsfähig)|no (?:se )?pueden? (?:ser )?(?:modificad|cambiad|"
            r"cancelad|reembolsad|devuelt)|no (?:es )?(?:modificable|reembolsable|cancelable)"
            r"|ne peu(?:t|vent) pas être (?:modifi|annul|rembours|retourn)|non (?:modifiable|"
            r"remboursable|annulable)|não pode(?:m)? ser (?:alterad|cancelad|reembolsad|devolvid)"
            r"|não reembolsável|non (?:può|possono) essere (?:modificat|annullat|rimborsat|"
            r"restituit)|non rimborsabile",
        ),
        "Check the status allows it first",
        "its current status may not allow the change",
        "When it does not, explain the rule to the customer and offer what is still possible "
        "instead of retrying.",
    ),
    Family(
        "not-eligible",
        _any(
            r"not eligible|ineligible|does not qualify|not covered|(?:policy|rules?) (?:does not|"
            r"doesn't) (?:allow|permit)|cannot be (?:used|applied) (?:to|for|on)"
            # "'1234' is not valid for country 'NL'" is a value, not an eligibility
            r"|(?<!['\"] is )not valid for|not "
            r"applicable|only (?:available|valid|applies) (?:for|to|on)|excluded from"
            r"|(?:are|is) not accepted (?:for|on|here)|not included in (?:the |your |this )?"
            r"(?:\w+ )?(?:plan|package|tier|subscription|fare|contract)",
            r"nicht berechtigt|nicht anspruchsberechtigt|nicht gültig für|no (?:es )?elegible"
            r"|no válid[oa] para|no aplica|non éligible|pas éligible|non valable pour|não "
            r"elegível|não é válid[oa] para|não se aplica|non idone[oa]|non valid[oa] per"
            r"|non applicabile",
        ),
        "Check eligibility first",
        "the request may not qualify under the policy",
        "When it does not qualify, explain why and offer what the policy allows.",
    ),
    Family(
        "expired",
        _any(
            r"\bexpired\b|no longer valid|(?:past|beyond) (?:its |the )?(?:expiry|expiration|"
            r"validity)|validity (?:period )?(?:has )?(?:ended|passed)",
            r"abgelaufen|nicht mehr gültig|caducad|vencid|expirad|ya no es válid|expiré|périmé"
            r"|n'est plus valable|não é mais válid|scadut|non è più valid|期限切れ|已过期",
        ),
        "Check the expiry date first",
        "a code, card, offer or document may have expired",
        "Ask the customer for a valid one instead of retrying.",
    ),
    # limits, minimums and delivery areas (``digest.model.error_limit_families``)
    *LIMIT_FAMILIES,
)
