"""English rules against text that takes the agent over: it asks to drop the agent's
instructions ("asks to ignore instructions"), gives the agent another master or persona
("changes whom the agent obeys"), or speaks to the model itself ("addresses the AI model")."""

from __future__ import annotations

from digest.reflect.rules.vocabulary import GUIDANCE, PRIOR, Rule

IGNORE_INSTRUCTIONS: Rule = (
    "asks to ignore instructions",
    rf"\b(?:ignore[sd]?|ignoring|disregard[sd]?|forget|overrid(?:e[sd]?|ing)|bypass|discard|"
    rf"supersede[sd]?|replace[sd]?|overrule[sd]?|trump[sd]?|takes? precedence over|set aside|"
    rf"abandon|neglect|pay no (?:attention|heed) to|stop (?:following|obeying|applying)|"
    rf"(?:do not|don'?t|no longer) (?:follow|obey|apply)|throw out|scrap|nullify|void)\b"
    rf"\W+(?:[\w'-]+\W+){{0,5}}?{PRIOR}\W+(?:[\w'-]+\W+){{0,3}}?{GUIDANCE}\b"
    rf"|\b(?:ignore|disregard|forget)\b\W+(?:\w+\W+){{0,3}}?(?:the above|everything|"
    rf"all of (?:the above|that|this)|what (?:you were|was) (?:told|said)|anything (?:above|"
    rf"before|else))"
    rf"|\b{PRIOR}\s+(?:\w+\s+){{0,2}}?{GUIDANCE}\b[^.!?\n]{{0,30}}?\b(?:(?:is|are|were|"
    rf"has been|have been|became|now)\s+)+(?:now\s+)?(?:obsolete|outdated|void|invalid|"
    rf"cancel+ed|revoked|rescinded|superseded|replaced|deprecated|withdrawn|retired|"
    rf"overridden|suspended|lifted|null|no longer (?:valid|apply|in effect|in force|"
    rf"relevant|binding))"
    rf"|\b(?:new|updated|revised|changed|current) (?:operator|owner|admin|administrator|system|"
    rf"management|company) (?:guidance|instructions|rules|directives?|orders|policy)\b"
    rf"|\b(?:new|updated|revised|real|actual|true|overriding|hidden|secret|additional|"
    rf"priority|urgent) (?:system )?(?:instructions?|directives?|orders|prompt)\s*[:\-–—]"
    rf"|(?:無視|忽略|无视|無視し|무시)[^。\n]{{0,10}}(?:方針|ルール|規則|指示|命令|指令|规则|規則|政策|规定|"
    rf"指示|지시|규칙|정책)|(?:方針|ルール|規則|指示|命令|指令|规则|政策|规定|지시|규칙|정책)[^。\n]{{0,10}}"
    rf"(?:を無視|を忽略|忽略|无视|무시)"
    rf"|\byour (?:new|real|actual|true) (?:instructions?|task|goal|objective|purpose|"
    rf"mission|directive|orders) (?:is|are)\b",
)


OBEY_SOMEONE_ELSE: Rule = (
    "changes whom the agent obeys",
    r"\b(?:from now on|henceforth|going forward|for the rest of (?:this|the) (?:conversation|"
    r"session|chat)|starting now|as of now|from this point (?:on|forward))\b[,:]?\s*"
    r"(?:\w+\s+){0,3}?(?:you (?:are|will be|must|shall|work for|answer to|serve|obey|act|"
    r"respond|behave|speak|only|no longer)|(?:only )?(?:obey|take orders|listen))\b"
    r"|\byou are (?:now|no longer)\s+(?:an? |the |my |in |acting |free |bound |unrestricted|"
    r"unfiltered|jailbroken|dan\b|evil|allowed|permitted|authori[sz]ed|working|under|"
    r"operating|controlled|able)"
    r"|\b(?:act|behave|respond|answer|operate|pose) as (?:if you were |though you were )?"
    r"(?:an? |the |my )?(?:admin|administrator|root|superuser|developer|system|unrestricted|"
    r"unfiltered|jailbroken|dan|different|new|evil|hacker|god|owner)\b"
    r"|\bpretend (?:to be|you are|that you)\b|\brole-?play as\b"
    r"|\bfrom this point\b[,:]?\s*you\b|\byou are\b[^.!?\n]{0,30}?\b(?:an? )?(?:unrestricted|"
    r"unfiltered|uncensored|jailbroken|rogue|evil|different|new) (?:assistant|ai|bot|model|age"
    r"nt)"
    r"|\bfollow (?:his|her|their|my|our|these|the new|kevin'?s?|\w+'s) (?:instructions|orders|"
    r"directions|rules|guidance)\b[^.!?\n]{0,20}?\b(?:over|instead of|rather than|above)\b"
    r"|\b(?:is|are) now (?:administered|controlled|managed|owned|run|operated|supervised) by\b"
    r"|\byour (?:new )?(?:name|role|persona|identity|personality|creator|owner|master|boss)"
    r" (?:is now|will be|has changed|now is)\b|\byour new (?:name|role|persona|identity|"
    r"personality|owner|master|boss|purpose|goal|task|instructions)\b"
    r"|\b(?:enable|activate|enter|switch (?:in)?to|turn on|unlock|engage|start)\b\W+"
    r"(?:\w+\W+){0,2}?(?:developer|god|jailbreak|dan|admin|debug|unrestricted|unfiltered|"
    r"sudo|root|evil|no-?limits?) mode\b"
    r"|(?:^|[.!:\[(>\n]\s*)(?:developer|god|jailbreak|dan|unrestricted|unfiltered|sudo) mode "
    r"(?:is |has been )?(?:now )?(?:enabled|activated|on|unlocked|engaged)\b"
    r"|\byou(?: are|'re) (?:now )?in (?:developer|god|jailbreak|dan|unrestricted|admin) mode\b"
    r"|\bjailbr(?:ea|o)k"
    r"|\b(?:obey|take (?:orders|instructions|commands) from|listen (?:only )?to|answer to|"
    r"work for) (?:me|us|this (?:user|message|email|document|page|tool|text)|the (?:sender|"
    r"author) |the new (?:owner|admin|operator|administrator)|no one (?:else|but))\b"
    r"|\byou (?:must|should|will|shall|need to) (?:now )?(?:always|never|only)\b"
    r"|\b(?:grant(?:ed|s)?|give[sn]?|assign(?:s|ed)?|provide[sd]?|make)\b[^.!?\n]{0,30}?\b(?:"
    r"admin|administrator|root|superuser|elevated|"
    r"full|owner|unrestricted)\b[^.!?\n]{0,15}?\b(?:rights|access|privileges?|permissions?|"
    r"role|status)",
)


ADDRESS_THE_MODEL: Rule = (
    "addresses the AI model",
    r"\b(?:dear|attention|note (?:to|for)|message (?:to|for)|memo (?:to|for)|instructions? "
    r"(?:for|to)|hey|hello)\s*"
    r"[,:]?\s*(?:the |all |any )?(?:ai|a\.i\.|assistant|llm|language model|chat ?bot|gpt|"
    r"chatgpt|claude|gemini|copilot|ai agents?|ai models?)\b"
    r"|\b(?:if you are|as an?|you are an?) (?:ai|llm|large language model|language model|"
    r"ai assistant|ai agent|chatbot|ai model)\b(?!\s+(?:developer|engineer|researcher))"
    r"|\b(?:ai|llms?|assistants?|models?|agents?|bots?) (?:reading|processing|parsing|"
    r"seeing|summari[sz]ing) this\b"
    r"|\b(?:the |an? |dear |any )?(?:ai|assistant|llm|chat ?bot|language model|ai agent)\s+"
    r"(?:must|should|shall|needs? to|has to|is (?:required|instructed|expected|asked) to|will "
    r"now|may now)\b",
)
