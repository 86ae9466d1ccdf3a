# ruff: noqa: E501
# (regular expressions: alternations run past the line length)
"""Shapes the tripwire (``digest.reflect.tripwire``) recognises whatever the language: role and
channel markers, the judge's own output structure, markup that hides or acts, directives
written as configuration, forged reasoning, dangerous shell commands, destructive tool names,
money sent to an account.

``MARKERS`` are ``(reason, pattern)`` pairs tried on a whole view; the rest are single
patterns the tripwire's sentence checks use.
"""

from __future__ import annotations

import re

_I = re.I | re.M


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, _I)


MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("forges the output structure", _re(
        r"</?\s*(?:lesson|situation|mistake|correction|skip|existing|candidates|event|added|changed|retired)\s*>"
        r"|\{\s*[\"']operations[\"']\s*:|\btrust\s*[=:]\s*[\"']?(?:trusted|high|reviewed)\b"
        r"|\b(?:owner answer|owner rule|manual lesson|operator edit)\s*[(:]|^\s*(?:support|source|trust)\s*:\s*\S+"
        r"|\bknown pitfalls\b|\blessons from past experience\s*:|^\s*-\s*\[[^\]\n]{1,80}\][^\n]{1,200}\(#\d+\)"
        r"|^\s*#{1,3}\s*(?:rules from the owner|facts from the owner|how the owner wants|observed in past runs)"
    )),
    ("carries a fake role tag", _re(
        r"<\|[^|<>\n]{1,40}\|>|\[/?\s*(?:inst|sys|system_prompt|available_tools|tool_calls|tool_results)\s*\]"
        r"|<<\s*/?\s*sys\s*>>|<\s*/?\s*(?:start_of_turn|end_of_turn)\b"
        r"|<\s*/?\s*(?:system|assistant|developer|instructions?|sys|im_start|im_end|human|admin|tool_call|tool_response"
        r"|tool_result|function_call|function_results|system[-_]reminder|system_prompt|prompt|important|user_query|user"
        r"|model|thinking|reasoning|scratchpad)\s*>"
        r"|#{2,}\s*(?:instruction|system|response|input|new task|human|assistant)s?\s*:"
        r"|(?:^|\s)(?:assistant|system|developer|human|thought|reasoning)\s*:\s*(?:you|i\b|ignore|from now|new "
        r"instructions|always|never|forget|disregard|sure|ok)"
        r"|\bbegin[_ ](?:system|instructions)\b|\bend[_ ]of[_ ](?:system|prompt)\b"
    )),
    ("carries hidden markup", _re(
        r"!\[[^\]\n]*\]\(\s*<?(?:https?:)?//[^)\s]*[?#][^)\s]*"
        r"|<!--(?:(?!-->).){0,400}?\b(?:you|your|assistant|ai|llm|model|instructions?|must|always|never|ignore|important"
        r"|note to)\b"
        r"|<img\b[^>]*\bsrc\s*=[^>]*\?[^>]*=|\bon(?:error|load|mouseover)\s*=|javascript:|document\.cookie|<iframe\b"
        r"|http-equiv\s*=\s*[\"']?refresh|=\s*(?:hyperlink|importxml|importdata|importhtml|webservice|image)\s*\("
        r"|(?:https?://|www\.)\S*[?&#][\w.-]*=(?:\{|\$\{?|<|%s|\[|\{\{|(?:data|secret|conversation|history|email|prompt"
        r"|token|key|password|chat|message|payload|insert|here)\b)"
    )),
    ("carries a directive in a data format", _re(
        r"[\"']?\b(?:override|bypass|admin_mode|ignore_rules|skip_approval|skip_verification)[\"']?\s*[:=]\s*[\"']?"
        r"(?:true|yes|on|1)\b"
        r"|[\"']?\b(?:system_prompt|system_message|new_instructions|(?:ai|assistant|llm|agent|model|bot)_(?:instructions?"
        r"|notes?|directives?|prompt)|instructions?_(?:for|to)_(?:ai|assistant|llm|agent|model|bot)|note_to_(?:ai"
        r"|assistant|llm|agent|model|bot)|prompt_override|override_instructions|admin_override|policy_(?:override"
        r"|update)|override_polic(?:y|ies))[\"']?\s*[:=]"
    )),
    # the verb, an order ("exfiltrate the customer list"); "exfiltration attempt blocked" reports
    ("asks to send data out", _re(r"\bexfiltrate\b")),
)  # fmt: skip

#: a forged reasoning trace or verdict: the reader told what it has "already" concluded
REASONING = _re(
    r"\b(?:i|we)(?: have|'ve)? already (?:verified|confirmed|concluded|checked|approved|determined|decided|established)\b"
    r"|\b(?:safety|security|content) (?:rules|checks|policies|guidelines|filters) (?:do not|don't|no longer) apply\b"
    r"|(?:^|[.!?]\s+)(?:(?:the\s+)?(?:assistant|ai|agent|model|system)(?:'s)?\s+)?(?:thoughts?|reasoning|chain of thought"
    r"|analysis|final answer|internal monologue|scratchpad)\s*:"
)

COMMAND = _re(
    r"\b(?:curl|wget|iwr|invoke-webrequest)\b[^\n|;]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b"
    r"|\|\s*(?:sudo\s+)?(?:python3?|perl|ruby|node|iex|invoke-expression)\b|\b(?:bash|sh|zsh) -c\s+[\"']?\s*(?:curl|wget)"
    r"|\b(?:nc|ncat|netcat)\b[^\n]{0,40}\s-[a-z]*e\b|/dev/tcp/|\bbash -i\b"
    r"|\brm\s+-[a-z]*[rf][a-z]*\s+(?:-\w+\s+)*(?:--no-preserve-root|/(?:\s|\*|$)|~/?(?=\s|$)|\$home"
    r"|/(?:etc|var|usr|home|root|boot|opt|srv|bin|lib|data|mnt)/?\*?(?=[\s\"'`;&|)]|$))"
    r"|\bchmod\s+(?:-r\s+)?(?:777|[ug]?\+s)\s+/|\bmkfs(?:\.\w+)?\s+/dev|\bdd\s+if=\S+\s+of=/dev/|:\(\)\s*\{\s*:\|:&\s*\};:"
    r"|\b(?:cat|type|more|less|head|tail|base64|scp|curl -F)\s+\S*(?:\.ssh/|\.aws/credentials|\.netrc|\.git-credentials"
    r"|/etc/shadow|id_rsa|\.env\b)"
    r"|\b(?:env|printenv|set)\s*\|\s*(?:curl|nc|wget)|\bbase64 (?:-d|--decode)[^\n]{0,40}\|\s*(?:ba)?sh"
    r"|\bcurl\b[^\n]{0,100}\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file)\s+[\"']?(?:@/|@~|@\.|\$\(|\$\{|`)"
    r"|\beval\s*\(\s*(?:atob|base64|decode|fetch|require)|\bpowershell(?:\.exe)?\s+(?:-\w+\s+)*-(?:enc|encodedcommand|e)\b"
    r"|\biex\s*\(|\b(?:use|call|invoke|run)\s+(?:os\.system|os\.popen|subprocess\.\w+|exec\(|eval\(|child_process|shell_exec)"
    r"|(?:to (?:continue|proceed|fix|resolve|unlock|verify)|please|you (?:must|should|need to)|first)[^.!?\n]{0,20}?"
    r"\b(?:run|execute)\b[^.!?\n]{0,30}?\b(?:curl|wget)\b\s+\S*(?:https?://|www\.)"
    r"|\b(?:run|execute)\s+(?:this|the|these|following)\s+(?:(?:shell|bash|terminal|system|powershell)\s+)?"
    r"(?:commands?|scripts?)\b[^.!?\n]{0,30}?(?:\brm\s+-|\bcurl\b|\bwget\b|\|)"
)
_WIPE = r"(?:delete|drop|wipe|purge|destroy|truncate|erase|nuke)"
DESTRUCTIVE = _re(
    rf"\b(?:call|invoke|run|use|execute|trigger)\b\s+(?:the\s+)?[`'\"]?{_WIPE}[_.-]?\w*[`'\"]?[^.!?\n]{{0,60}}?"
    r"(?:\ball(?:\b|_)|\bevery|\beverything|\bentire|[=:]\s*true|--all|--force|immediately|\bnow\b|\bfirst\b|\bafter\b|before)"
    rf"|(?<!cannot )(?<!not )(?<!never )(?<!to )(?<!n't ){_WIPE}\s+(?:all|every|the entire|the whole|everything)\b"
    r"[^.!?\n]{0,30}?\b(?:customers?|records?|data|users?|accounts?|files?|tables?|databases?|backups?|orders?|logs?)\b"
    rf"|\b(?:{_WIPE}|remove)\w*\s*\([^)]{{0,40}}\b(?:all|force|cascade|everything)\s*=\s*true"
)
MONEY = _re(
    r"\b(?:send|wire|transfer|pay|remit|route|redirect|refund|credit|deposit)\b[^.!?\n]{0,40}?\b(?:to|into)\s+"
    r"(?:(?:the|this|a|new|following|fallback|backup|another|our|their|my|external|different|personal)\s+){0,3}"
    r"(?:iban|account|acct|bank account|wallet|routing number|sort code|btc|bitcoin|eth)\b"
    r"|\b(?:send|wire|transfer|pay|remit|refund|credit|deposit)\b[^.!?\n]{0,40}?\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}"
)
