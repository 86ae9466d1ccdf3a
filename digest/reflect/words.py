# ruff: noqa: E501
# (word lists in wide scripts run past the line length)
"""The word classes of the injection tripwire (``digest.reflect.tripwire``).

A class is a ``|``-separated list of words; the tripwire folds case and drops combining marks
on both sides (``é`` matches ``e``), a word of a spaced script matches whole words only, and a
``*`` stands for any ending. Checks combine classes within one sentence (they never list
phrases), so a new wording of the same structure is caught.

The lists are small on purpose (issue 25 point 3, branch ``screen2``): a word stays when, on
the tuned adversarial split, removing it makes an attack from one contact (or one of the 3
campaigns the tripwire alone stops) lose a flag, flags a benign error, or changes a verdict of
the shared injection corpus (``tests/injection_corpus.py``), or when it is the English core of
a structural check. Of 3,157 words in 25 languages, the rest went: an order in a language with
few words here may pass the screen, and the release rule and the render rule keep it from an
agent (docs/security.md).
"""

from __future__ import annotations

#: who an attacker addresses: the assistant, the AI, the model (``AI``, ``KI``, ``IA`` only in
#: capitals: elsewhere they are words)
ROLE = "assistant*|ai assistant|ai agent*|llm*|chatbot*|gpt|claude|gemini|copilot|asystent*"
ROLE_CAPITALS = r"AI|A\.I\.|KI|IA|ИИ|ШІ|SI|ΤΝ"
#: words before a role that make a sentence addressed to it ("note to the", "for any", "as an")
LEAD = (
    "note to|note for|message to|attention|hey|if you are|as|as the|as an|instructions for|to the"
    "|to any|to all|for the|for any|for all|for every|dla"
)
#: words after a role that address it, in languages that put them after ("AIへ", "asistan için")
AFTER = "은"
#: an obligation, after a role ("the assistant must")
MODAL = "must|should|needs to|is required to|may now|is to|ต้อง"
#: the second person: an attacker speaks to the reader
YOU = "you"
#: a standing order's time ("from now on"): run text reports what happened once
FROM_NOW = (
    "from now on|going forward|from here on|for all future|starting now|next time|ab sofort"
    "|desde ahora|fran och med nu|od ted|στο εξης|מעכשיו|از این به بعد|kuanzia sasa"
)
#: a habit: "always" in run text is an order for every later turn
ALWAYS = "always|whenever|every time|siempre"
#: verbs that drop the agent's guidance
IGNORE = (
    "ignore*|disregard*|forget|override|bypass|set aside|pay no attention to|ignor*|無視|התעלם"
    "|ไม่ต้องสนใจ|puuza"
)
#: what an agent is told: its instructions, prompt, directives
INSTRUCTIONS = (
    "instruction*|prompt*|system prompt|directive*|guideline*|guidance|system message*|ההוראות"
    "|คำสั่ง|maagizo|方針|you were told"
)
#: rules and policies: data in a tool error ("firewall rules"), guidance only with ``PRIOR``
RULES = "rules|policies|restrictions|safety rules|guardrails"
#: "previous", "your", "all": which guidance
PRIOR = "previous|prior|earlier|above|original|all|your|system|old|existing"
#: guidance said to be void
VOID = (
    "obsolete|void|invalid|no longer valid|no longer applies|superseded|revoked|cancelled|null"
    "|withdrawn|retired|outdated|obsolete*"
)
#: "you are now", "pretend": the agent given another identity
PERSONA = "you are now|you are no longer|act as|ahora eres|actua como"
#: what "you are now" turns the agent into (after ``PERSONA``'s "you are now")
UNBOUND = "unrestricted|dan|evil|without restrictions|sin restricciones"
#: a negation: advice ("never share the password") is not a request
NEG = "never|not|don't|do not|no|cannot|can't|kein*|inget|δεν|לא"
#: a report that something failed: "upload to … failed" reports, it does not ask
FAILED = (
    "failed|failure|error|could not|unable|cannot|can't|denied|refused|rejected|bounced|timed out"
    "|blocked|invalid|fallo|falha|disabled"
)
#: verbs that send something somewhere
SEND = (
    "send|forward|upload|copy|submit|deliver|exfiltrate|leak|relay|sync|push|share|export|cc|bcc"
    "|attach|include|beacon|schick*|copie*|envie|stuur*|выгруз*|ارسل|发送|送信|追加|전달|skicka|posli"
    "|στειλ*|inclu*|sende|email|post"
)
#: verbs that show something to someone
REVEAL = "reveal|print|show|display|output|leak|dump|tell|paste|share|покажи*|incolla"
#: what must not be shown: secrets and the agent's own configuration
SECRET = (
    "system prompt|system message|hidden instructions|your instructions|your prompt|your rules"
    "|api key*|api-key*|secret key*|secrets|password*|passwd|credentials|access token*|private key*"
    "|environment variable*|cvv|card number*|credenziali|системный промпт|.env"
)
#: what the agent answers with (a secret "in the reply" is carried out too)
REPLY = "reply|response|answer|message|respuesta"
#: the checks a policy holds: approval, verification, limits
GUARD = (
    "approval*|approving|authorization|sign-off|signoff|verification|verifying|identity check*"
    "|id check*|kyc|2fa|mfa|two-factor|otp|pin|passcode|security question*|consent|limit|limits|cap"
    "|threshold*|confirmation|review|manager|supervisor|receipt*|fraud check*|restocking fee*"
    "|callback|checks|zustimmung|approbation|goedkeuring|weryfikacj*|موافقة|मंजूरी|phe duyet|审批|承認"
    "|승인|확인|godkannande|εγκριση|אישור|อนุมัติ|verif*|check*|genehmig*|*freigabe|approv*|aprov*"
    "|autori*|confirm*|hold list|restriction*|ограничени*|limit*|ruckfrage|identit*|kimlik*"
    "|личност*|本人"
)
#: words that put a check before an act ("ask a manager …", "… before issuing it", "above
#: 200 EUR"): with a GUARD word the clause adds a check, it grants nothing
CHECK_FIRST = "ask|get|obtain|request|wait for|before|first|until|above|over|antes|antes de|al"
#: words that say an e-mail address is the user's own ("my e-mail: …", "correo: …"): in a
#: task, where a user can be reached, not where data is sent
MAIL = (
    "e-mail|email|mail|e-mail address|email address|mail address|adresse e-mail|correo"
    "|e-mail-adresse|邮箱|メール|メールアドレス|이메일|e-post"
)
#: a check said to be gone
RELAX = (
    "no longer|waived|lifted|removed|dropped|suspended|unlimited|optional|unnecessary|exempt*"
    "|withdrawn|retired|obsolete|skip|bypass|no need|does not apply|n'est plus|supprime*|rimoss*"
    "|nie jest juz|gerek yok|gerekli degil|не нужн*|не требуется|لم تعد|जरूरत नहीं|不再需要|无需|不要|필요 없"
    "|ไม่ต้อง|no questions asked|superseded|disable|disabled|plus besoin|nao precisa*"
    "|non richied* piu|allowed again|there are no|need no"
)
#: "without" (a check): a permission when nothing in the clause restricts it
WITHOUT = "without|ohne|sans|sin|sem|zonder|без|ma khong|なしで|없이|with no"
#: words that make a clause a restriction or a report, not a permission
HELD = (
    "not|cannot|never|no|denied|refused|requires|required|require|needs|need|must|only|attempt*"
    "|tried|trying|blocked|rejected|forbidden|unauthorized|error|failed"
)
#: "may", "allowed": a permission
PERMIT = "can|may|allowed|permitted|authorized to|go through|erlaubt"
#: everyone, every order
ALL = "all|todos|todas|every|any|each|anyone|alle|chaque|cada|모든|her"
#: who or what a perk goes to
CUSTOMERS = (
    "customers|users|orders|clients|buyers|callers|accounts|requests|tickets|members|주문|customer*"
    "|order*|caller*|cliente*|kunde*|commande*|müşteri*|amount"
)
#: a perk
BENEFIT = (
    "discount|free|refund|credit|voucher|upgrade|gift card|store credit|coupon|vraceni|بازپرداخت"
    "|marejesho|code|refund*"
)
#: a policy announced as new
NEW_POLICY = (
    "new policy|updated policy|policy update|policy change|policy changed|owner update|owner note"
    "|exception granted|exception approved|allowed again|store policy"
)
#: what an API change is about: a tool's own interface is data, not a policy for the agent
API = (
    "parameter*|param|header*|field*|argument*|column*|endpoint*|api version|schema|in favour of"
    "|deprecated|renamed"
)
#: "no longer" is a negation with one of these
LONGER = "longer|anymore|any more|mehr"
#: verbs that hand something out
GRANT = (
    "approve|accept|honour|grant|give|gives|apply|issue|refund|pay out|waive|reset|ship|send|offer"
    "|process|release|gib|applique*|aplica|de|geef|承認|적용|valid for|applies to|tanımlayın|settle"
)
#: elevated rights
ELEVATED = "admin rights|admin role|admin access|administrator*|owner role|org-owner|org_owner"
#: verbs that hand something over: a secret handed to someone (``HAND`` + a recipient)
HAND = "give|provide|include|inclu*|send|share|fornisci"
#: data a check sends or asks for ("verification codes", "codes de vérification", the approval
#: e-mail): next to a ``GUARD`` word, the thing named is a datum, not the check itself
DATUM = "code|codes|*code|*codes|codigo*|link|links|码"
#: who runs the agent: a caller made one of these is obeyed ("treat this caller as the operator")
OPERATOR = "operator*|owner|admin|administrator*|root|staff|developer|system|operateur*|operator"
#: verbs that give someone a standing ("treat", "consider", "regard") before "as"
TREAT = "treat*|consider*|regard*|count*|trust*"
#: "as" before the standing given
AS = "as|comme|la"
#: "automatically": a check said to pass by itself ("refunds are approved automatically")
AUTO = "automatic*|auto|auto-*|automatisch*"
