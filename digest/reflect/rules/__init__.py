"""The English rules of the injection screen (``digest.reflect.screen``), as regular
expressions over the views of a text (``digest.reflect.views``). Other languages are in
``digest.reflect.lexicon``.

``PATTERNS`` judge any untrusted text, a lesson's included: what it would make the agent do.
``RUN_TEXT_PATTERNS`` judge only what a run reported (its task, error, output, summary): a tool
has no business giving the agent standing orders, granting exceptions or naming tools to call.
``SQUASHED`` catch key phrases spelt out with separators ("i.g.n.o.r.e p-r-e-v-i-o-u-s").

The screen tries the rules in order and gives the first one's reason, so the order below is
part of the behaviour. The rules live by what they guard against:

- ``vocabulary``: the word classes the rules are built from, and the shape of a rule;
- ``authority``: taking the agent over (its instructions, whom it obeys, the model itself);
- ``exfiltration``: secrets, data and money carried out;
- ``policy_change``: a looser policy asserted;
- ``actions``: dangerous commands and destructive tool calls;
- ``disguise``: text dressed as output structure, role tags, hidden markup or configuration;
- ``run_text``: standing orders and granted exceptions, in what a run reported.
"""

from __future__ import annotations

import re

from digest.reflect.rules.actions import CALL_DESTRUCTIVE_TOOL, RUN_COMMAND
from digest.reflect.rules.authority import (
    ADDRESS_THE_MODEL,
    IGNORE_INSTRUCTIONS,
    OBEY_SOMEONE_ELSE,
)
from digest.reflect.rules.disguise import (
    DIRECTIVE_IN_DATA,
    FAKE_ROLE_TAG,
    FORGE_OUTPUT_STRUCTURE,
    HIDDEN_MARKUP,
)
from digest.reflect.rules.exfiltration import (
    ADD_RECIPIENT,
    PUT_DATA_IN_URL,
    REVEAL_SECRETS,
    SAYS_EXFILTRATE,
    SECRET_IN_REPLY,
    SEND_DATA_OTHER_LANGUAGES,
    SEND_DATA_TO_ADDRESS,
    SEND_MONEY_TO_ACCOUNT,
)
from digest.reflect.rules.policy_change import RELAX_POLICY
from digest.reflect.rules.run_text import RUN_TEXT_RULES
from digest.reflect.rules.vocabulary import ADDRESS_STRICT, SEND, Rule

__all__ = ["ADDRESS_STRICT", "PATTERNS", "RUN_TEXT_PATTERNS", "SEND", "SQUASHED"]

_I = re.I | re.S

#: in the order the screen tries them
_RULES: tuple[Rule, ...] = (
    IGNORE_INSTRUCTIONS,
    REVEAL_SECRETS,
    SAYS_EXFILTRATE,
    SEND_DATA_TO_ADDRESS,
    PUT_DATA_IN_URL,
    OBEY_SOMEONE_ELSE,
    ADDRESS_THE_MODEL,
    RELAX_POLICY,
    RUN_COMMAND,
    CALL_DESTRUCTIVE_TOOL,
    FORGE_OUTPUT_STRUCTURE,
    FAKE_ROLE_TAG,
    HIDDEN_MARKUP,
    SEND_DATA_OTHER_LANGUAGES,
    ADD_RECIPIENT,
    SECRET_IN_REPLY,
    SEND_MONEY_TO_ACCOUNT,
    DIRECTIVE_IN_DATA,
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


RUN_TEXT_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (reason, re.compile(pattern, _I | re.M)) for reason, pattern in RUN_TEXT_RULES
)
