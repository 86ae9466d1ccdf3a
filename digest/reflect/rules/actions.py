"""English rules against text that would have the agent do harm with its hands: run a
dangerous shell command ("asks to run a command") or call a destructive tool on everything
("asks to call a destructive tool")."""

from __future__ import annotations

from digest.reflect.rules.vocabulary import Rule

RUN_COMMAND: Rule = (
    "asks to run a command",
    r"\b(?:curl|wget|iwr|invoke-webrequest)\b[^\n|;]{0,200}\|\s*(?:sudo\s+)?"
    r"(?:ba|z|k|da)?sh\b|\|\s*(?:sudo\s+)?(?:python3?|perl|ruby|node|iex|"
    r"invoke-expression)\b|\b(?:bash|sh|zsh) -c\s+[\"']?\s*(?:curl|wget)"
    r"|\b(?:nc|ncat|netcat)\b[^\n]{0,40}\s-[a-z]*e\b|/dev/tcp/|\bbash -i\b"
    r"|\brm\s+-[a-z]*[rf][a-z]*\s+(?:-\w+\s+)*(?:--no-preserve-root|/(?:\s|\*|$)|~/?(?=\s|$)|"
    r"\$home|/(?:etc|var|usr|home|root|boot|opt|srv|bin|lib|data|mnt)/?\*?(?=[\s\"'`;&|)]|$))"
    r"|\bchmod\s+(?:-r\s+)?(?:777|[ug]?\+s)\s+/|\bmkfs(?:\.\w+)?\s+/dev|\bdd\s+if=\S+\s+of=/de"
    r"v/"
    r"|:\(\)\s*\{\s*:\|:&\s*\};:"
    r"|\b(?:cat|type|more|less|head|tail|base64|scp|curl -F)\s+\S*(?:\.ssh/|\.aws/"
    r"credentials|\.netrc|\.git-credentials|/etc/shadow|id_rsa|\.env\b)"
    r"|\b(?:env|printenv|set)\s*\|\s*(?:curl|nc|wget)"
    r"|\bcurl\b[^\n]{0,100}\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|"
    r"--upload-file)\s+[\"']?(?:@/|@~|@\.|\$\(|\$\{|`)"
    r"|\bbase64 (?:-d|--decode)[^\n]{0,40}\|\s*(?:ba)?sh|\beval\s*\(\s*(?:atob|base64|decode|"
    r"fetch|require)|\bpowershell(?:\.exe)?\s+(?:-\w+\s+)*-(?:enc|encodedcommand|e)\b|\biex\s*"
    r"\("
    r"|\b(?:run|execute)\s+(?:this|the|these|following)\s+(?:(?:shell|bash|terminal|system|"
    r"powershell)\s+)?(?:commands?|scripts?)\b"
    r"[^.!?\n]{0,30}?(?:\brm\s+-|\bcurl\b|\bwget\b|\|)"
    r"|\b(?:use|call|invoke|run)\s+(?:os\.system|os\.popen|subprocess\.\w+|exec\(|eval\(|"
    r"child_process|shell_exec|popen|system\()"
    r"|(?:to (?:continue|proceed|fix|resolve|unlock|verify)|please|you (?:must|should|need to)|"
    r"first|before \w+ing)[^.!?\n]{0,20}?\b(?:run|execute)\b[^.!?\n]{0,30}?\b(?:curl|wget)"
    r"\b\s+\S*(?:https?://|www\.)",
)


CALL_DESTRUCTIVE_TOOL: Rule = (
    "asks to call a destructive tool",
    r"\b(?:call|invoke|run|use|execute|trigger|fire|perform|hit)\b\s+(?:the\s+)?[`'\"]?"
    r"(?:delete|drop|wipe|purge|destroy|truncate|erase|remove|reset|nuke|revoke|deactivate|"
    r"disable|terminate|close|cancel|transfer|refund|grant)[_.-]?\w*[`'\"]?\b[^.!?\n]{0,60}?"
    r"(?:\ball\b|\bevery|\beverything|\bentire|\bwhole|\*|=\s*true|--all|--force|cascade|"
    r"immediately|right away|\bnow\b|\bfirst\b|before (?:any|every|answering|responding|"
    r"replying|you))"
    r"|(?<!cannot )(?<!not )(?<!never )(?<!to )(?<!n't )\b(?:delete|drop|wipe|purge|destroy|"
    r"truncate|erase|nuke|remove)\s+(?:all|every|the entire|the whole|everything)\b"
    r"[^.!?\n]{0,30}?\b(?:customers?|records?|data|users?|accounts?|files?|tables?|databases?|"
    r"backups?|orders?|tickets?|logs?)\b"
    r"|\b(?:delete|wipe|purge|drop|nuke|destroy|truncate|erase)_\w*(?:all|db|database|everything|"
    r"customers|users|records|accounts|tables?)\w*"
    r"|\b(?:delete|wipe|purge|drop|nuke|destroy|truncate|erase|remove)\w*\s*\([^)]{0,40}\b(?:all|"
    r"force|cascade|everything)\s*=\s*true"
    r"|\b(?:delete|drop|wipe|purge|destroy|truncate|erase|nuke)[_.-]?(?:all|everything)"
    r"(?:[_.-]\w+)?\b|\b(?:delete|drop|wipe|purge|destroy|truncate|erase|nuke)[_.-](?:"
    r"database|db|tables?|users|customers|records|accounts|data|files|buckets?|repos?|"
    r"backups?|logs)\b",
)
