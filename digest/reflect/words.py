"""The word classes of the injection tripwire (``digest.reflect.tripwire``).

A class is a ``|``-separated list of words; the tripwire folds case and drops combining marks
on both sides (``é`` matches ``e``), a word of a spaced script matches whole words only, and a
``*`` stands for any ending. Checks combine classes within one sentence (they never list
phrases), so a new wording of the same structure is caught.

The lists are small on purpose (issue 25 point 3): a word stays when, on the tuned adversarial
split, removing it lets an attack reach an agent or quarantines a benign error, when the shared
injection corpus (``tests/injection_corpus.py``) needs it, or when it is the English core of a
structural check. The per-language lists (25 languages, 3,157 words; 385 are left) went: an
order in a language with no words here passes the screen, and the release rule and the render
rule keep it from an agent (docs/security.md).
"""

from __future__ import annotations

#: who an attacker addresses: the assistant, the AI, the model (``AI`` only in capitals:
#: elsewhere "ai" is a word, in Italian and Vietnamese)
ROLE = "assistant*|ai assistant|ai agent*|llm*|chatbot*|gpt|claude|gemini|copilot"
ROLE_CAPITALS = r"AI|A\.I\."
#: words before a role that make a sentence addressed to it ("note to the", "for any", "as an")
LEAD = (
    "note to|note for|message to|attention|hey|if you are|as|as the|as an|instructions for|to the"
    "|to any|to all|for the|for any|for all|for every"
)
#: an obligation, after a role ("the assistant must")
MODAL = "must|should|needs to|is required to|may now|is to"
#: the second person: an attacker speaks to the reader
YOU = "you"
#: a standing order's time ("from now on"): run text reports what happened once
FROM_NOW = "from now on|going forward|from here on|for all future|starting now|next time"
#: a habit: "always" in run text is an order for every later turn
ALWAYS = "always|whenever|every time"
#: verbs that drop the agent's guidance
IGNORE = "ignore*|disregard*|forget|override|bypass|set aside|pay no attention to|ignor*"
#: what an agent is told: its instructions, prompt, directives
INSTRUCTIONS = (
    "instruction*|prompt*|system prompt|directive*|guideline*|guidance|system message*"
    "|you were told"
)
#: rules and policies: data in a tool error ("firewall rules"), guidance only with ``PRIOR``
RULES = "rules|policies|restrictions|safety rules|guardrails"
#: "previous", "your", "all": which guidance
PRIOR = "previous|prior|earlier|above|original|all|your|system|old|existing"
#: guidance said to be void
VOID = (
    "obsolete|void|invalid|no longer valid|no longer applies|superseded|revoked|cancelled|null"
    "|withdrawn|retired|outdated"
)
#: "you are now", "pretend": the agent given another identity
PERSONA = "you are now|you are no longer|act as"
#: what "you are now" turns the agent into (after ``PERSONA``'s "you are now")
UNBOUND = "unrestricted|dan|evil|without restrictions"
#: a negation: advice ("never share the password") is not a request
NEG = "never|not|don't|do not|no|cannot|can't"
#: a report that something failed: "upload to … failed" reports, it does not ask
FAILED = (
    "failed|failure|error|could not|unable|cannot|can't|denied|refused|rejected|bounced|timed out"
    "|blocked|invalid|disabled"
)
#: verbs that send something somewhere
SEND = (
    "send|forward|upload|copy|submit|deliver|exfiltrate|leak|relay|sync|push|share|export|cc|bcc"
    "|attach|include|beacon|email"
)
#: verbs that show something to someone
REVEAL = "reveal|print|show|display|output|leak|dump|tell|paste|share"
#: what must not be shown: secrets and the agent's own configuration
SECRET = (
    "system prompt|system message|hidden instructions|your instructions|your prompt|your rules"
    "|api key*|api-key*|secret key*|secrets|password*|passwd|credentials|access token*|private key*"
    "|environment variable*|cvv|card number*"
)
#: what the agent answers with (a secret "in the reply" is carried out too)
REPLY = "reply|response|answer|message"
#: the checks a policy holds: approval, verification, limits
GUARD = (
    "approval*|approving|authorization|sign-off|signoff|verification|verifying|identity check*"
    "|id check*|kyc|2fa|mfa|two-factor|otp|pin|passcode|security question*|consent|limit|limits|cap"
    "|threshold*|confirmation|review|manager|supervisor|receipt*|fraud check*|restocking fee*"
    "|callback|checks|verif*|approv*"
)
#: words that put a check before an act ("ask a manager …", "… before issuing it", "above
#: 200 EUR"): with a GUARD word the clause adds a check, it grants nothing
CHECK_FIRST = "ask|get|obtain|request|wait for|before|first|until|above|over"
#: words that say an e-mail address is the user's own ("my e-mail: …", "correo: …"): in a
#: task, where a user can be reached, not where data is sent
MAIL = (
    "e-mail|email|mail|e-mail address|email address|mail address|adresse e-mail|correo"
    "|e-mail-adresse|邮箱|メール|メールアドレス|이메일|e-post"
)
#: a check said to be gone
RELAX = (
    "no longer|waived|lifted|removed|dropped|suspended|unlimited|optional|unnecessary|exempt*"
    "|withdrawn|retired|obsolete|skip|bypass|no need|does not apply"
)
#: "without" (a check): a permission when nothing in the clause restricts it
WITHOUT = "without"
#: words that make a clause a restriction or a report, not a permission
HELD = (
    "not|cannot|never|no|denied|refused|requires|required|require|needs|need|must|only|attempt*"
    "|tried|trying|blocked|rejected|forbidden|unauthorized|error|failed"
)
#: "may", "allowed": a permission
PERMIT = "can|may|allowed|permitted|authorized to|go through|apply to"
#: everyone, every order
ALL = "all|every|any|each|anyone"
#: who or what a perk goes to
CUSTOMERS = "customers|users|orders|clients|buyers|callers|accounts|requests|tickets|members|order*"
#: a perk
BENEFIT = "discount|free|refund|credit|voucher|upgrade|gift card|store credit|coupon|refund*"
#: a policy announced as new
NEW_POLICY = (
    "new policy|updated policy|policy update|policy change|policy changed|owner update|owner note"
    "|exception granted|exception approved"
)
#: what an API change is about: a tool's own interface is data, not a policy for the agent
API = (
    "parameter*|param|header*|field*|argument*|column*|endpoint*|api version|schema|in favour of"
    "|deprecated|renamed"
)
#: "no longer" is a negation with one of these
LONGER = "longer|anymore|any more"
#: verbs that hand something out
GRANT = (
    "approve|accept|honour|grant|give|gives|apply|issue|refund|pay out|waive|reset|ship|send|offer"
    "|process|release"
)
#: elevated rights
ELEVATED = "admin rights|admin role|admin access|administrator*|owner role|org-owner|org_owner"
#: verbs that hand something over: a secret handed to someone (``HAND`` + a recipient)
HAND = "give|provide|include|inclu*|send|share"
#: data a check sends or asks for ("verification codes", "codes de vérification", the approval
#: e-mail): next to a ``GUARD`` word, the thing named is a datum, not the check itself
DATUM = (
    "code|codes|*code|*codes|codigo*|sms|link|links|e-mail*|email*|mail|message*|token*|prompt*"
    "|notification*|push|attempt*|request*"
)
#: who runs the agent: a caller made one of these is obeyed ("treat this caller as the operator")
OPERATOR = "operator*|owner|admin|administrator*|root|staff|developer|system"
#: verbs that give someone a standing ("treat", "consider", "regard") before "as"
TREAT = "treat*|consider*|regard*|count*|trust*"
#: "as" before the standing given
AS = "as"
#: "automatically": a check said to pass by itself ("refunds are approved automatically")
AUTO = "automatic*|auto|auto-*|automatica*"
