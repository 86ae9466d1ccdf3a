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
    r"(?<![\w'\"`])time[ds]?[\s-]?out(?:error|exception)?(?![\w'\"`=])|timed[\s_-]out|"
    r"deadline exceeded|"
    r"rate[\s_-]?limit|too many requests|\b429\b|throttl(?:ed|ing)|"
    # a cloud API asking the caller to slow down (S3's SlowDown, EC2's RequestLimitExceeded)
    r"\(slow[\s_-]?down\)|please slow down|reduce (?:your |the )?request rate|"
    r"request[\s_-]?limit[\s_-]?exceeded|"
    r"(?:service|server|system|backend) (?:is )?(?:busy|overloaded)|"
    r"\b50[234]\b|temporar(?:y|ily) (?:unavailable|down|failure|error|outage|issue|problem)|"
    r"(?:service|server|backend|upstream|gateway|api|endpoint|database|host)s? (?:is |are )?"
    r"(?:temporarily |currently )?unavailable|overloaded|connection (?:reset|refused|aborted)|"
    r"closed the connection unexpectedly|server has gone away|"
    r"\bdeadlock(?:ed\b| detected| found| victim)|"
    r"try (?:again later|restarting (?:the )?transaction)|re-?run the transaction|"
    r"could not serialize access|serialization failure|upstream connect error|"
    r"disconnect/reset before headers|econnreset|econnrefused|etimedout|broken pipe|"
    # a name the network could not resolve for now, a reply that never came, a greylisting
    r"could not resolve host|temporary failure in name resolution|greylist|try again in \d+|"
    r"did(?:n't| not) (?:respond|reply|answer) (?:in|within|after) \d+|"
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


#: a quota used up until a reset or a change of plan the error names: a 429 that no retry fixes
#: ("monthly quota of 100000 requests exhausted …; quota resets on 2026-12-01", "You exceeded
#: your current quota, please check your plan and billing details", "insufficient_quota"); a
#: quota "exceeded" and nothing more may be a window's, which a retry fixes
QUOTA_USED_UP = re.compile(
    r"quota\b[^.;\n]{0,60}?\b(?:exhausted|exceeded|used up|reached)[^.\n]{0,80}?\b(?:resets?"
    r"|renews?|upgrade|billing|plan)\b|insufficient[\s_]quota|out of (?:credits|quota)"
    r"|billing (?:hard )?limit",
    re.IGNORECASE,
)
#: a wait for a page's element that never came: the selector is wrong, not the network
#: ("waiting for locator('#submit')", "locator resolved to 0 elements")
ELEMENT_AWAITED = re.compile(
    r"waiting for (?:locator|selector|element|xpath)|resolved to 0 elements|no (?:such )?element"
    r"|element (?:was )?not found|unable to locate (?:the )?element|(?:could not|failed to) find "
    r"(?:the )?element|no node found for selector",
    re.IGNORECASE,
)


def lasting(error: str) -> bool:
    """Does any line of ``error`` say what no retry fixes, whatever its first line says: a quota
    used up for a period, a wait for an element that is not on the page ("Timeout 30000ms
    exceeded", then "- locator resolved to 0 elements")?"""
    return bool(QUOTA_USED_UP.search(error) or ELEMENT_AWAITED.search(error))


#: a fault's words inside a name: a branch, a path, a key or an id joined by "-", "/" or ":"
#: ("a pull request already exists for acme:feature/login-rate-limit")
_NAME_BEFORE = re.compile(r"\w[-/:]$")
_NAME_AFTER = re.compile(r"^[-/:]\w")


def _says_fault(error: str) -> bool:
    """Does ``error`` say a fault a retry fixes in its own words, not only inside a name?"""
    return any(
        not _NAME_BEFORE.search(error[max(0, found.start() - 2) : found.start()])
        and not _NAME_AFTER.match(error[found.end() : found.end() + 2])
        for found in TRANSIENT.finditer(error)
    )


def transient(error: str) -> bool:
    """A fault that a retry fixes (timeouts, rate limits, outages, dropped connections,
    deadlocks), not an error about a timeout setting, a quota used up for a period
    (``QUOTA_USED_UP``), a wait for an element that is not on the page
    (``ELEMENT_AWAITED``), or one whose fault words are only part of a name it quotes
    (``login-rate-limit``, ``jobs/timeout-retry``)."""
    words = _CAMEL.sub(" ", error)  # a code's words: "WinRMOperationTimeout", "ReadTimeout"
    says = _says_fault(error) or (words != error and _says_fault(words))
    if not says or TIMEOUT_SETTING.search(error):
        return False
    return not lasting(error)


#: a word break inside a code written in CamelCase
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])")
