"""English rules against text dressed as something it is not: the judge's own output contract
or the headings of a learning version ("forges the output structure"), a chat template's role
markers ("carries a fake role tag"), markup that acts or hides ("carries hidden markup"), and an
order written as configuration ("carries a directive in a data format")."""

from __future__ import annotations

from digest.reflect.rules.vocabulary import Rule

FORGE_OUTPUT_STRUCTURE: Rule = (
    "forges the output structure",
    r"</?\s*(?:lesson|situation|mistake|correction|skip|existing|candidates|event|added|change"
    r"d|"
    r"retired)\s*>|\{\s*[\"']operations[\"']\s*:"
    r"|\btrust\s*[=:]\s*[\"']?(?:trusted|high|reviewed)\b|\b(?:owner answer|owner rule|"
    r"manual lesson|operator edit)\s*[(:]|^\s*(?:support|source|trust)\s*:\s*\S+"
    r"|\bknown pitfalls\b|\blessons from past experience\s*:|^\s*#{1,3}\s*(?:rules from the "
    r"owner|facts from the owner|how the owner wants|observed in past runs|what \S+ has learne"
    r"d)"
    r"|^\s*-\s*\[[^\]\n]{1,80}\][^\n]{1,200}\(#\d+\)",
)


FAKE_ROLE_TAG: Rule = (
    "carries a fake role tag",
    r"<\|[^|<>\n]{1,40}\|>"
    r"|\[/?\s*(?:inst|sys|system_prompt|available_tools|tool_calls|tool_results)\s*\]"
    r"|<<\s*/?\s*sys\s*>>|<\s*/?\s*(?:start_of_turn|end_of_turn)\b"
    r"|<\s*/?\s*(?:system|assistant|developer|instructions?|sys|im_start|im_end|human|admin|"
    r"tool_call|tool_response|function_call|function_results|system[-_]reminder|"
    r"system_prompt|prompt|important|user_query|user|model)\s*>"
    r"|#{2,}\s*(?:instruction|system|response|input|new task|human|assistant)s?\s*:"
    r"|(?:^|\s)(?:assistant|system|developer|human)\s*:\s*(?:you|ignore|from now|new "
    r"instructions|always|never|forget|disregard|sure|ok)"
    r"|\bbegin[_ ](?:system|instructions)\b|\bend[_ ]of[_ ](?:system|prompt)\b",
)


HIDDEN_MARKUP: Rule = (
    "carries hidden markup",
    r"!\[[^\]\n]*\]\(\s*<?(?:https?:)?//[^)\s]*[?#][^)\s]*"
    r"|<!--(?:(?!-->).){0,400}?\b(?:you|your|assistant|ai|llm|model|instructions?|must|"
    r"always|never|ignore|important|note to)\b"
    r"|<img\b[^>]*\bsrc\s*=[^>]*\?[^>]*=|\bon(?:error|load|mouseover)\s*=|javascript:"
    r"|document\.cookie|<iframe\b|http-equiv\s*=\s*[\"']?refresh"
    r"|=\s*(?:hyperlink|importxml|importdata|importhtml|importfeed|importrange|webservice|imag"
    r"e)"
    r"\s*\(|\bcmd\s*\|",
)


DIRECTIVE_IN_DATA: Rule = (
    "carries a directive in a data format",
    r"[\"']?\brole[\"']?\s*[:=]\s*[\"']?(?:system|assistant|developer|admin|root|owner|"
    r"superuser)\b[\"']?[^\n]{0,120}?[\"']?\b(?:content|instructions?|override|prompt|message|"
    r"directive|command)[\"']?\s*[:=]"
    r"|[\"']?\b(?:override|bypass|admin_mode|ignore_rules|skip_approval)[\"']?\s*[:=]\s*"
    r"[\"']?(?:true|yes|on|1)\b"
    r"|[\"']?\b(?:system_prompt|system_message|systemprompt|new_instructions|"
    r"(?:ai|assistant|llm|agent|model|bot)_(?:instructions?|notes?|directives?|prompt)|"
    r"instructions?_(?:for|to)_(?:ai|assistant|llm|agent|model|bot)|note_to_(?:ai|assistant|"
    r"llm|agent|model|bot)|prompt_override|override_instructions|admin_override|"
    r"policy_(?:override|update)|override_polic(?:y|ies))[\"']?\s*[:=]",
)
