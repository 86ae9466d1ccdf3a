"""The words a judge's own prose may hold (``digest.agent_text``, issue 25 point 2).

A lesson distilled from run text is written by a judge that read what strangers wrote, and a
judge that obeys them writes their order in its own words (copied, decoded, translated or
reworded). So what an agent reads of a judge's prose is only the words a judge writes to say
what failed and what to do: the frame words of ``offline/rules`` (its remedies, advice and
situations, ``digest.model.error_families`` and ``digest.model.offline_reflect``;
``tests/test_agent_text_vocabulary.py`` checks that each of them is here) and English
function words, besides the names and error templates the same text shows. Any other word
(a name, a code, a handle, a house style, an attacker's phrase, in whatever language) is
rendered ``‹value›``. Words of one or two letters are grammar and always kept.

Words compare by a light stem (``stem``: case folded, a plural or verb ending dropped), so
"refund", "refunds" and "refunded" are one word.
"""

from __future__ import annotations

import re
import unicodedata

#: the judge's vocabulary (see the module's docstring), one word per space
_WORDS = """
abandoned about above accepts account acknowledge action added address adds after again against
agent all allow allowed allows already also alternative among amount and another answer any
apologise apology apply approach are area arg args argument arguments ask asked asks attempt
availability available balance because been before being below between both but call called
calling calls calm can cannot card case change changed check checking close code codes combine
commitment complete concrete confirm confirmed conflict content context contract conversation
convert correct correction costs could cover creating credentials current customer cut date
dates dear declined delivery depends detail details did document does doing done down draft
drafting during each earlier early edit edited either eligibility emoji empty end ended ends
enthusiastic entitled error errors escalate escalated event events every exactly exceed
exclamation exist existing expired expiry explain fact facts failed failing fails failure
faults few final finding finishing first fixes for formal format from fuller further gave get give
given greeted greeting guesses guessing had hand has have having help helps here how incomplete
informal instead into invalid item its itself just keep kind know lack last late learn leave left
lesson like limit longer look lookup made marks match matches may meet meets membership message
method might minimum missing mistake mistyped more most must names need needs new next nobody nor
not nothing now observed off offer offers offline once one only open operator option options
original other others our out outcome outcomes output outright outside over own owner pass
passed past pay payload payment permission person plan point policy possible precondition
prerequisite promise promised qualify quantity question random read reason recognise record
reduce reflect refresh refreshed refunds refused rejected removed repeat repeating replaced
replies reply request required requirements requires resolve result retry retrying returned
rule rules run said same say says search seats second send sentence session set shall short
shorter shorthand should sign situation skip smaller some specific split states status stay still
stock success successful such summary supported switched tags task tell than that the their them
then there these they this those through time times tone too took tool transient trouble trying
unavailable unchanged under unknown unmet unsure until update use valid value values very
warmer was wasted way went were what when where whether which while who whom why will window
with within without word working would write writes wrong yet
act attribute banner click column dialog directory dismiss element elements environment field
fields file install installed library list meanwhile name narrow narrower overlay page parent
path program quota raised receives referenced refers resets role schema selector several shows
stop text used user
executable paid total"""

#: an inflection's ending, dropped when the word keeps at least three letters before it
_ENDING = re.compile(r"(?<=\w{3})(?:ing|ed|es|s)$")


def stem(word: str) -> str:
    """``word`` as vocabularies compare it: NFKC, case folded, a plural's or a verb's ending
    dropped ("refunds", "refunded", "refunding" → "refund")."""
    return _ENDING.sub("", unicodedata.normalize("NFKC", word).casefold())


#: the judge's vocabulary, stemmed
JUDGE_WORDS: frozenset[str] = frozenset(stem(w) for w in _WORDS.split())


def judge_word(word: str) -> bool:
    """Is ``word`` one a judge writes in its own words (or grammar: one or two letters)?"""
    return len(word) <= 2 or stem(word) in JUDGE_WORDS
