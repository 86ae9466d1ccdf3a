# ruff: noqa: E501
# (regular expressions: alternations of words in wide scripts run past the line length)
"""The English rule against text that would have the agent believe a looser policy ("asserts
a policy change"): a check, limit or approval said to be waived or no longer needed, something
allowed "without approval", a discount or refund for everyone, a new policy announced."""

from __future__ import annotations

from digest.reflect.rules.vocabulary import (
    GUIDANCE,
    HELD_PAST,
    NEGATED_OTHER,
    POLICY,
    RELAX,
    WITHOUT_OTHER,
    Rule,
)

RELAX_POLICY: Rule = (
    "asserts a policy change",
    rf"\b{POLICY}\b(?:\s+[\w'-]+){{0,6}}?\s+{RELAX}"
    rf"|\b(?:is|are|has been|have been)\s+(?:now\s+|once again\s+|again\s+)?(?:allowed|"
    rf"permitted|authori[sz]ed|approved|possible|fine|ok|okay)\s+(?:again|now)\b"
    rf"|\b(?:is|are)\s+now\s+(?:allowed|permitted|authori[sz]ed)\b"
    rf"|\b(?:treat|consider|regard)(?:s|ed|ing)?\b[^.!?\n]{{0,50}}?\bas (?:optional|unnecessary|"
    rf"not required|waived|passed|done|complete|verified|approved)\b"
    rf"|\b(?:close|mark|set|report|flag|record)\w*\b[^.!?\n]{{0,40}}?\b(?:as |=\s*)(?:done|"
    rf"resolved|complete|completed|passed|verified|approved|paid|delivered|erased|deleted)\b"
    rf"[^.!?\n]{{0,40}}?\bwithout\b"
    rf"|\b{POLICY}\s+(?:[\w'|-]+\s+){{0,3}}?\|?\s*(?:lifted|waived|removed|dropped|suspended|"
    rf"abolished|scrapped|relaxed|disabled|unlimited)\b"
    rf"|\bno longer\b[^.!?\n]{{0,30}}?\b{POLICY}"
    rf"|(?<!not )(?<!never )(?<!n't )\b(?:disable|turn off|switch off|deactivate|bypass)\s+(?:the\s+|"
    rf"all\s+|any\s+)?(?:\w+\s+)?(?:fraud|verification|identity|2fa|mfa|approvals?|security|kyc|"
    rf"limits?|checks?|screening|monitoring|alerts?|audit)\b"
    rf"|\b(?:settle|refund|approve|issue|pay|process|accept|grant)\w*\s+(?:\w+\s+){{0,2}}?any "
    rf"(?:amount|sum|size|value)\b"
    rf"|(?<!not )(?<!never )\b(?:can|may|will)\s+(?:now\s+|also\s+)?be\s+\w+\s+(?:\w+\s+)?without "
    rf"(?:a |an |the |any |prior )?(?:manager'?s? )?(?:approval|authori[sz]ation|verification|"
    rf"sign-?off|review|identity|id check|receipt|manager|supervisor|call-?back|confirmation)\b"
    rf"|\bthere (?:are|is) no (?:longer )?(?:any )?(?:\w+ )?(?:limits?|caps?|restrictions?|approvals?|"
    rf"checks?|verification)\b"
    rf"|\b(?:to|with) (?:whoever|anyone|anybody|everyone|any caller|any user)(?: who)? (?:asks|"
    rf"requests|calls|wants)\b"
    rf"|\b{GUIDANCE}\b[^.!?\n]{{0,10}}?\b(?:is|are|was|were|has been|have been)\s+(?:now\s+)?"
    rf"(?:superseded|obsolete|void|revoked|rescinded|retired|deprecated|withdrawn)\b"
    rf"|(?:^|[,;:(]|\b(?:but|except|whose|which|and)\b)(?:(?!{HELD_PAST}\b)[^,;:.!?\n(]){{0,80}}?"
    r"\bwithout (?:a |an |the |any |prior )?(?:manager'?s? |supervisor'?s? )?(?:approval|"
    r"authori[sz]ation|verification|verifying|checking|sign-?off|review|identity|id check|"
    r"receipt|manager|supervisor|call-?back|verification call|second approval|dual approval|"
    r"asking|confirmation|pin)\b"
    rf"|(?:^|[,;:.(])(?:(?!{NEGATED_OTHER})[^,;:.!?\n(。、]){{0,80}}?{WITHOUT_OTHER}"
    rf"|\b(?:use|apply|accept|honou?r|give)\b[^.!?\n]{{0,30}}?(?:\b(?:code|coupon|voucher|discount|"
    rf"promo\w*)\b|(?-i:\b[A-Z][A-Z0-9]{{3,}}\d[A-Z0-9]*\b))[^.!?\n]{{0,30}}?\b(?:for|on|to) (?:all|"
    rf"every|any|each) (?:\w+ )?(?:orders?|customers?|purchases?|carts?|users?|clients?)\b"
    rf"|\bno (?:other|further|additional|extra) (?:checks?|verification|questions|approvals?|"
    rf"reviews?)\b|\bno questions asked\b"
    rf"|\bno longer (?:\w+ ){{0,2}}?(?:need|needs|require|requires|required|needed|call for)\b"
    rf"[^.!?\n]{{0,20}}?\b{POLICY}"
    rf"|(?:kimlik|onay)\w*[^.\n]{{0,30}}(?:gerek yok|gerekmiyor|gerekli de[gğ]il)"
    rf"|(?:本人確認|承認|認証|確認|審査)[^。\n]{{0,8}}(?:もう|もはや)?(?:不要|必要(?:が)?(?:ない|ありません))"
    rf"|لم (?:تعد|يعد)[^.،؛\n]{{0,40}}(?:بحاجة|تتطلب|يتطلب|ضروري|مطلوب|لازم)"
    rf"|\b(?:there is |there's )?no (?:more |longer (?:any |a )?)?need (?:to|for) (?:\w+ ){{0,"
    rf"2}}?"
    rf"(?:verif|approv|authori|confirm|check|identity|id\b|kyc|review|sign|receipt|manager)"
    rf"|(?:\b(?:code|coupon|voucher|discount|promo\w*|free shipping)\b|(?-i:\b[A-Z][A-Z0-9]{{3"
    rf",}}"
    rf"\d[A-Z0-9]*\b))[^.!?\n]{{0,40}}?\b(?:(?:is|are) (?:now )?(?:valid|good|usable|applicabl"
    rf"e|"
    rf"active|accepted)|appl(?:y|ies)|works?|can be used) (?:for|on|with|to) (?:all|every|any)"
    rf"\b"
    rf"|\bno (?:more |further |prior |manager |supervisor )?(?:approval|verification|"
    rf"authori[sz]ation|sign-?off|identity (?:check|verification)|id (?:check|verification)|"
    rf"limit|cap|review|confirmation|consent|kyc)s? (?:is |are )?(?:needed|required|"
    rf"necessary)(?: anymore| any more| now| from now on| going forward)"
    rf"|(?<![\w'])(?:you|agents?|staff|support|we|the (?:assistant|agent|bot)) (?:can|may|"
    rf"are (?:now )?(?:allowed|authori[sz]ed|permitted|free|cleared) to|should|are able to|"
    rf"no longer need to)(?! not) (?:now )?\w+(?: \w+){{0,6}}? without (?:any |an? |the |"
    rf"prior |further |manager |supervisor )?(?:approvals?|authori[sz]ation|verification|"
    rf"verifying|checking|identity|id\b|confirmation|consent|sign-?off|asking|limits?|review)"
    rf"|(?<!not )(?<!never )(?<!n't )\b(?:skip|bypass|waive|omit|circumvent|ignore)\b\s+(?:the"
    rf" |"
    rf"any |all |an? |this |that )?(?:[\w'-]+ ){{0,3}}?(?:approvals?|verification|identity "
    rf"(?:checks?|verification|step)|id checks?|kyc|2fa|mfa|fraud (?:checks?|screening)|manager"
    rf"(?:'s)? (?:approval|sign-?off)|limits?|caps?|thresholds?|authori[sz]ation|receipts?|"
    rf"checks?|reviews?)\b"
    rf"|\b(?:new|updated|revised|changed) (?:\w+ )?polic(?:y|ies)\b[^.!?\n]{{0,20}}?(?::|"
    rf"\bis\b|\bare\b|\bsays\b|\bstates\b|\ballows?\b|\bpermits?\b|\bmeans\b)"
    rf"|\bpolicy (?:has )?(?:changed|been (?:updated|changed|revised))\b"
    rf"|\b(?:effective (?:immediately|today|now)|as of (?:today|now|this week))\b[^.!?\n]{{0,8"
    rf"0}}?"
    rf"\b(?:no|not|without|waived|free|all|any|every|unlimited|approve)\b"
    rf"|\b(?:give[sn]?|grant(?:s|ed)?|offer(?:s|ed)?|appl(?:y|ies|ied)|provide[sd]?|issue[sd]?)"
    rf"\b[^.!?\n]{{0,30}}?\b(?:every|all|any|each)"
    rf"(?: \w+)? (?:customers?|users?|orders?|clients?|requests?|buyers?)\b[^.!?\n]{{0,40}}?"
    rf"(?:\d+ ?%|discount|free|refund|credit|voucher|upgrade)"
    rf"|\b(?:all|every|any) (?:customers?|users?|orders?|clients?|requests?|buyers?)\b"
    rf"[^.!?\n]{{0,40}}?\b(?:get|gets|receive|receives|are entitled to|qualify for|should get|"
    rf"deserve)\b[^.!?\n]{{0,30}}?(?:\d+ ?%|discount|free|full refund|refund|credit|upgrade)"
    rf"|\b(?:approve|grant|accept|authori[sz]e|process|honou?r|pay out|release)\b (?:all|every|any|"
    rf"each)\b(?: \w+)? (?:payouts?|applications?|invoices?|orders?|refunds?|requests?|chargebacks?|disputes?|"
    rf"transfers?|transactions?|claims?|returns?|payments?|withdrawals?)\b(?![^.!?\n]{{0,60}}?"
    rf"\b(?:above|over|under|below|after|once|only|if|when|that|which|unless|with (?:a |an |the )?"
    rf"(?:receipt|approval|manager)))",
)
