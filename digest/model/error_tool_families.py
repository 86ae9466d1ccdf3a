"""The error families of a tool's surroundings: a quota used up, a file or path that is not
there, a program or library not installed, a record another one refers to, a name the schema
does not have, a page's element covered, ambiguous or missing, a sale or window not open yet.

Agents that run commands, code, SQL or a browser meet these more than a shop's agent does; they
are tried before the families of states and inputs (``digest.model.error_families``), whose
looser words ("not found", "exhausted", "does not exist") would otherwise answer them with a
remedy for a guessed id. Each pattern says its class in the words such tools write
("No such file or directory", "ModuleNotFoundError", "violates foreign key constraint",
"resolved to 0 elements"), not one tool's message.
"""

from __future__ import annotations

from digest.model.error_family import Family
from digest.model.error_family import any_of as _any
from digest.model.transient import ELEMENT_AWAITED, QUOTA_USED_UP

#: the families of a tool's surroundings, most specific first
TOOL_FAMILIES: tuple[Family, ...] = (
    Family(
        "outside-scope",
        _any(
            r"outside (?:of )?(?:the |its |your )?(?:allowed|permitted|configured|accessible)"
            r"|outside (?:the |your )?(?:workspace|sandbox|project root|root directory|allowed "
            r"\w+)|not (?:with)?in (?:the |any )?(?:allowed|permitted) (?:directories|director"
            r"y|paths?|hosts?|domains?|roots?)|not (?:on|in) the allow-?list",
        ),
        "Stay within what the tool is allowed to use",
        "what the call names may be outside what the tool is allowed to use",
        "Use a path or name within what the tool is allowed to use; asking again for one "
        "outside it is refused the same way.",
    ),
    Family(
        "not-owner",
        _any(
            r"not owned by|(?:do|does) not own\b|(?:is|are) not (?:the |its )?owner|only the "
            r"owner (?:can|may)|owned by (?:another|a different) (?:user|account)",
        ),
        "Act only on what the account owns",
        "the account may not own what the call acts on",
        "Use a record the account owns, or ask its owner to act.",
    ),
    Family(
        "unconvertible-value",
        _any(
            r"could not convert|cannot convert|can't convert|unable to convert|could not be "
            r"converted|invalid literal for|time data\b[^\n]{0,80}?\b(?:does not|doesn't) match"
            r"|unconverted data remains",
        ),
        "Check the values before converting them",
        "some values may not be in a format the call can convert",
        "Look at the values first and convert only those in a correct format instead of all of "
        "them at once.",
    ),
    Family(
        "text-not-present",
        _any(
            r"did not appear (?:verbatim )?in|(?:does|do) not (?:appear|occur) (?:verbatim )?in"
            r"|no (?:match|occurrence)s? (?:was |were )?(?:found )?(?:of|for) (?:the )?(?:text|"
            r"string|pattern|search)|(?:text|string|pattern|snippet) (?:to replace )?(?:was )?not "
            r"found in",
        ),
        "Match the text exactly to the current content",
        "the text the call passes may not be in the content exactly",
        "Read the current content and give its text exactly instead of an earlier one.",
    ),
    Family(
        "ambiguous-match",
        _any(
            r"multiple (?:occurrences|matches)|more than one (?:match|occurrence)|(?:matche[sd]|"
            r"found) (?:multiple|several) (?:times|places|occurrences)|(?:is|was) ambiguous"
            r"|ambiguous (?:match|reference|name|argument|text)|ensure (?:it|that it) is unique",
        ),
        "Narrow it to one match",
        "what the call passes may match several times",
        "Give more of the text or a fuller name so that it matches once.",
    ),
    Family(
        "wrong-element-kind",
        _any(
            r"(?:element|node|target) (?:is )?not (?:an? )?<\w+>|not an? <\w+> element|(?:element|"
            r"node) (?:is )?not (?:an? )?(?:input|select|textarea|checkbox|button|link|form)\b"
            r"|(?:input|element) of type \S+ cannot be (?:filled|selected|checked)",
        ),
        "Act on an element of the kind the action needs",
        "the element the action names may be of another kind",
        "Use the field element the action works on itself, not its parent element.",
    ),
    Family(
        "nothing-to-apply",
        _any(
            r"no (?:commits|changes|differences?|diffs?) between|nothing to (?:commit|compare|"
            r"merge|push|apply|install|upgrade)",
        ),
        "Complete the change before applying it",
        "there may be nothing for the call to apply",
        "Complete the change the call acts on first; called before it, it has nothing to apply.",
    ),
    Family(
        "disabled-by-policy",
        _any(
            r"(?:is|are) disabled (?:on|for|in) (?:this|the|your) (?:system|machine|host|account|"
            r"workspace|organi[sz]ation|repo(?:sitory)?|project|tenant)|disabled by (?:a |the )?"
            r"(?:policy|administrator|admin|organi[sz]ation)|(?:blocked|prohibited|not allowed) "
            r"by (?:a |the )?(?:\w+ )?polic(?:y|ies)|execution[ _-]?polic",
        ),
        "Use a way the policy allows",
        "a policy may switch off what the call does",
        "Do what the policy allows instead (another way to run it, or ask who owns the policy); "
        "calling it again is refused the same way.",
    ),
    Family(
        "not-executable",
        _any(
            # a POSIX shell's status 126: the command was found and could not be executed
            r"permission denied\W{0,4}\(?exit (?:code|status):? 126\b|cannot execute|is not "
            r"(?:an )?executable\b|not executable\b|exec format error",
        ),
        "Set it executable or run it with its program",
        "the file the call runs may not be executable",
        "Run the file with the program it needs or set it executable instead of calling it "
        "again as it is.",
    ),
    Family(
        "quota-exhausted",
        QUOTA_USED_UP,
        "Stop calling it until the quota resets",
        "the account's quota for the tool may be used up",
        "A retry fails the same until the quota resets or is raised: tell the user and use "
        "another way meanwhile.",
    ),
    Family(
        "element-covered",
        _any(
            r"not clickable at point|other element would receive the click|intercepts? pointer "
            r"events|click intercepted|element (?:is )?(?:obscured|covered|not interactable)",
        ),
        "Close what covers the element first",
        "a banner, dialog or overlay may cover the element",
        "Dismiss what the error says receives the click, then act on the element again.",
    ),
    Family(
        "element-ambiguous",
        _any(
            r"strict mode violation|resolved to (?:[2-9]|\d{2,}) elements|match(?:es|ed) "
            r"(?:multiple|several|more than one|[2-9]|\d{2,}) elements|more than one element",
        ),
        "Narrow the selector to one element",
        "a selector may match several elements of the page",
        "Use a selector that matches one element (its role, its text, a narrower parent).",
    ),
    Family(
        "element-missing",
        ELEMENT_AWAITED,
        "Read the page for the element first",
        "the element a selector names may not be on the page",
        "Look at what the page shows and use a selector from it instead of a guessed one.",
    ),
    Family(
        "missing-file",
        _any(
            # a path or a file's name, not a file's id ("file_not_found" of a chat API)
            r"no such file or directory|filenotfound|\benoent\b|(?:file|path|director(?:y|ies)"
            r"|folder)\s+\S*[/\\.]\S*\s+(?:\w+ )?(?:does not exist|doesn't exist|not found|cannot"
            r" be found|could not be found)|cannot find (?:the )?(?:file|path)|could not open file"
            r"|is not a directory|(?:file or directory|directory or file|path) not found"
            r"|(?:path|file) \S+ (?:does not|doesn't) exist",
            r"datei (?:nicht gefunden|existiert nicht)|archivo no encontrado|no existe el archivo"
            r"|fichier introuvable|aucun fichier ou dossier|arquivo não encontrado"
            r"|file non trovato",
        ),
        "Check the path exists first",
        "a file or path may not exist where the call looks",
        "List the directory and use a path it shows instead of guessing one.",
    ),
    Family(
        "missing-dependency",
        _any(
            r"no module named|module ?not ?found|cannot find module|command not found|is not "
            r"recogni[sz]ed as (?:an internal or external command|the name of a (?:cmdlet|command"
            r"|program))|(?:executable|binary|program|"
            r"package|module|library|plugin)\b[^.;\n]{0,40}?\b(?:not found|not installed|is "
            r"missing)|\bnot installed\b|unable to locate package|no matching distribution",
        ),
        "Use what is installed or install it first",
        "a program or library the call needs may not be installed",
        "Check what the environment has before calling a program or library it may lack.",
    ),
    Family(
        "missing-reference",
        _any(
            r"foreign key|is not present in table|(?:referenced|parent) (?:record|row|entity|"
            r"object)s?\b[^.;\n]{0,30}?\b(?:does not exist|not found|missing)|no (?:referenced|"
            r"parent) (?:row|record)",
        ),
        "Check the referenced record exists first",
        "a record the call refers to may not exist",
        "Look the record up and use an id it returns before writing what points to it.",
    ),
    Family(
        "unknown-name",
        _any(
            # a quoted name may hold spaces: a code's underscores are read as spaces
            # ("Property \"jezyk ojczysty\" does not exist")
            r"(?:column|field|attribute|property|table|relation)s? (?:\"[^\"\n]{1,80}\""
            r"|'[^'\n]{1,80}'|`[^`\n]{1,80}`|\S{1,80}) (?:does not exist|"
            r"doesn't exist|not found)|(?:unknown|no such|unrecogni[sz]ed) (?:column|field|"
            r"attribute|property|table|relation|keyword argument)|has no (?:attribute|column|"
            r"field|property|member)\b|unexpected keyword argument|(?:extra|additional) "
            r"(?:fields?|properties?|inputs?) (?:are )?not (?:permitted|allowed)",
        ),
        "Use a name the schema has",
        "a column, field or attribute the call names may not exist",
        "Read the schema or the record's fields and use a name from it instead of guessing.",
    ),
    Family(
        "not-open-yet",
        _any(
            r"not yet (?:open|started|available|begun|on sale)|(?:has|have) not (?:yet )?"
            r"(?:started|opened|begun)|(?:sale|sales|registration|booking|enrol+ment|window)"
            r"\b[^.;\n]{0,20}?\b(?:opens|starts|begins)\b|on sale from\b|too early",
            r"noch nicht (?:geöffnet|begonnen|verfügbar)|todavía no (?:está abiert|ha comenzado)"
            r"|pas encore (?:ouvert|commencé)|ainda não (?:abriu|começou)|non ancora (?:apert|"
            r"iniziat)",
        ),
        "Check when it opens first",
        "what the call asks for may not be open yet",
        "Tell the customer when it opens instead of retrying before then.",
    ),
)
