"""A fault a retry fixes (a timeout, a rate limit, an outage, a dropped connection, a
deadlock), in English and the languages the error families read: the offline judge learns
nothing from it (``<skip>``), whatever shape the error has (``digest.model.error_statement``).
"""

from __future__ import annotations

import re

#: a fault a retry fixes: timeouts, rate limits, outages. (An item "unavailable", or a date
#: "not available", is a precondition, not an outage.)
TRANSIENT = re.compile(
    # a timeout that happened, not a parameter named timeout ("invalid value for timeout_s")
    r"(?<![\w'\"`])time[ds]?[\s-]?out(?:error|exception)?(?![\w'\"`=])|timed out|"
    r"deadline exceeded|"
    r"rate[\s_-]?limit|too many requests|\b429\b|"
    r"\b50[234]\b|temporar(?:y|ily) (?:unavailable|down|failure|error|outage|issue|problem)|"
    r"(?:service|server|backend|upstream|gateway|api|endpoint|database|host)s? (?:is |are )?"
    r"(?:temporarily |currently )?unavailable|overloaded|connection (?:reset|refused|aborted)|"
    r"closed the connection unexpectedly|server has gone away|deadlock (?:detected|found)|"
    r"try (?:again later|restarting (?:the )?transaction)|upstream connect error|"
    r"disconnect/reset before headers|econnreset|econnrefused|etimedout|broken pipe|"
    # the same in the languages the families read: a timeout, a service down for now
    r"délai d'attente (?:dépassé|expiré)|zeitüberschreitung|tiempo de espera (?:agotado|"
    r"excedido)|tempo (?:limite|de espera) (?:esgotado|excedido)|tempo (?:di attesa )?scaduto"
    r"|temporairement indisponible|vorübergehend nicht (?:verfügbar|erreichbar)"
    r"|temporalmente (?:no disponible|fuera de servicio)|temporariamente indisponível"
    r"|temporaneamente non disponibile|tijdelijk niet beschikbaar|(?:service|servicio|serviço"
    r"|servizio|dienst|serveur|servidor)\w* (?:\w+ )?(?:indisponible|no disponible|nicht "
    r"verfügbar|indisponível|non disponibile|niet beschikbaar)",
    re.IGNORECASE,
)
#: an error about a timeout setting (a parameter, a field, a value), not a timeout that happened
TIMEOUT_SETTING = re.compile(
    r"(?:parameter|field|argument|option|value|setting)\W+(?:for\W+|of\W+)?\S*time[ds]?[\s_-]?out"
    r"|time[ds]?[\s_-]?out\S*\W+(?:must|should|is (?:required|invalid|not)|expects?|cannot)",
    re.IGNORECASE,
)


def transient(error: str) -> bool:
    """A fault that a retry fixes (timeouts, rate limits, outages, dropped connections,
    deadlocks), not an error about a timeout setting."""
    return bool(TRANSIENT.search(error)) and not TIMEOUT_SETTING.search(error)
