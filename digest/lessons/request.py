"""What a user asks, before the chatter around it: a message's sentences reordered so that
those that ask come first (issue 24 point 5).

A first message is often wrapped: a greeting, how the week went, the request, thanks and a
signature ("Hello!! Hope your day is going well :) So I've been meaning to get my dad
something for his birthday. Could you please purchase a leather wallet for him? Thanks a
million, Priya"). What a task is (``digest.lessons.cues``: its telling words, at most a
handful) and what a prompt is matched by (``digest.retrieve.prompt_keywords``: its first
keywords) are read from the start of the text, so the chatter before a request would fill
them. ``request_first`` puts the sentences that ask (a request marker: "could you",
"please", "kannst du", "pourriez", "puedes", "kun je", "kan du" …, or a question) first,
those that say what the writer wants ("I need", "I'd like", "je voudrais", "vorrei") next,
then those that neither ask nor make conversation, and those that only make conversation
(greetings, thanks, hopes, apologies, sign-offs) last, each group in the message's order.
Nothing is dropped: the words after the request still count when the request is short. A
message of one sentence, or whose sentences are all of one rank, reads as it came. Pure and
cheap (one pass over at most ``READ_MAX`` characters).
"""

from __future__ import annotations

import functools
import re

#: how much of a message is read (what a task is, and a prompt's keywords, come from its start)
READ_MAX = 1200

#: a sentence ends at ".", "!", "?", a line break, a "|" (a signature's separator), a dash
#: between words, a colon before a space, an emoticon or an emoji ("Happy Friday :) Could you
#: …"); a mark followed by more of the word does not end it ("3.5", "e.g.", "10:30", "v2.1")
_END = (
    r"[.!?]+(?=[\s\"')\]]|$)|[|\n]+|\s[—–]\s|\s--\s|:(?=\s)|[:;]-?[()DPp](?=\s|$)"
    r"|[\U0001F300-\U0001FAFF\u2600-\u27BF]+"
)


@functools.cache
def _sentence() -> re.Pattern[str]:
    # compiled on first use: the capture path imports this module and stays light
    return re.compile(rf"(?:(?!{_END}).)+(?:{_END}|$)|(?:{_END})+", re.S)


_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")

#: words and word pairs that ask something of whom they address, in the languages the product
#: reads ("could you", "please", "kannst du", "pourriez", "puedes", "kun je", "kan du")
_ASKS = frozenset(
    """
    please pls plz kindly could+you can+you would+you will+you could+i can+i may+i help+me
    is+it+possible how+do how+can
    bitte kannst+du können+sie könnten+sie könntest+du pourriez pouvez peux+tu
    puedes puede+usted podría podrías pode podes poderia puoi può potresti potrebbe
    kun+je kunt+u kan+je kan+du kan+ni kunne+du vil+du vill+du
    """.split()  # noqa: SIM905
)
#: …and that say what the writer wants ("I need", "I'd like", "je voudrais", "quiero")
_WISHES = frozenset(
    """
    i+need we+need i+want we+want i'd+like i+would i'd+love we'd+love we+would looking+for
    need+to wondering+if i+wish i'd+prefer i'd+rather
    ich+möchte ich+will ich+würde ich+brauche je+voudrais je+veux j'aimerais je+souhaite
    quiero necesito quisiera me+gustaría quero gostaria preciso vorrei voglio ho+bisogno
    ik+wil ik+wilde graag jag+vill jeg+vil behöver trenger har+brug
    """.split()  # noqa: SIM905
)
#: words and pairs that only make conversation: greetings, thanks, hopes, apologies, sign-offs
_CHATS = frozenset(
    """
    hi hello hey hiya howdy greetings morning+all good+morning good+afternoon good+evening
    hope hoping hopefully thanks thank cheers regards sincerely appreciate appreciated sorry
    apologies haha lol yay sent+from happy+friday best+wishes kind+regards how+are xx
    hallo danke grüße gruß hoffe bonjour salut merci cordialement j'espère hola gracias saludos
    espero olá obrigado obrigada abraços ciao grazie saluti spero bedankt groeten hoop hej tack
    hälsningar hilsen tak
    """.split()  # noqa: SIM905
)
_ALL = _ASKS | _WISHES | _CHATS
_LONGEST = max(marker.count("+") + 1 for marker in _ALL)
#: the first words of every marker: only a word that begins one is looked at further
_FIRST = frozenset(marker.split("+", 1)[0] for marker in _ALL)


def _markers(words: list[str], markers: frozenset[str]) -> bool:
    for start, word in enumerate(words):
        if word not in _FIRST:
            continue
        for size in range(1, _LONGEST + 1):
            if "+".join(words[start : start + size]) in markers:
                return True
    return False


def sentences(text: str) -> list[str]:
    """``text``'s sentences (each with its end mark), the first ``READ_MAX`` characters."""
    return [found.group(0) for found in _sentence().finditer(text[:READ_MAX]) if found.group(0)]


def rank_of(sentence: str) -> int:
    """0: the sentence asks something of whom it addresses (or is a question); 1: it says what
    the writer wants; 3: it only makes conversation; 2: none of these."""
    words = [word.casefold().replace("’", "'") for word in _WORD.findall(sentence)]
    if _markers(words, _ASKS) or sentence.rstrip().endswith("?"):
        return 0
    if _markers(words, _WISHES):
        return 1
    return 3 if _markers(words, _CHATS) else 2


def request_first(text: str) -> str:
    """``text`` (its first ``READ_MAX`` characters) with the sentences that ask first, those
    that only make conversation last, one sentence a line; as it came when it has one
    sentence or all its sentences are of one rank (``rank_of``)."""
    parts = sentences(text)
    if len(parts) < 2:
        return text[:READ_MAX]
    ranks = [rank_of(part) for part in parts]
    if len(set(ranks)) < 2:
        return text[:READ_MAX]
    ordered = sorted(range(len(parts)), key=lambda i: (ranks[i], i))
    return "\n".join(parts[i].strip(" |\n") for i in ordered)
