"""A lesson's cues: the telling words of the tasks it was learned from, for retrieval only.

A lesson from a failed run should come back when the agent meets a task like that run's
(``digest.pitfalls`` with the user's first message), but the user's text must never reach an
agent (DESIGN §8: "never the user's task text"). So the tasks' words live in the lesson's
``cues`` column: the agent's index matches a prompt's keywords against them
(``digest.lessons.neighbours``), and nothing renders them: not pitfalls, not the learning
document or its summary, not an export, not the lesson's history.

Every run that supports a lesson adds its task's words (``merged``), up to ``MAX_CUES``, and
its task's meaning (an embedding of those words, ``digest.lessons.vectors.add_task_meaning``):
a failure met in several kinds of task is found from each of them, whatever judge wrote it.

What is kept of a task is a handful of words, not its text: ids, numbers, addresses and URLs
masked away, common and conversational words of the languages the product reads left out,
names (capitalised words inside a sentence, in a language that does not capitalise its
nouns) left out, each word once, the sentences that ask first (``request_first``: "could
you …" before "hope your week went well"), in the order the task says them. The task itself
passed the screen before any lesson was drawn from it
(``digest.reflect.screen.event_reason``; a run that fails it teaches only quarantined
lessons, which no agent sees).
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from typing import Any

from digest.bounded import memo
from digest.fingerprint import mask_ids
from digest.identity.task_gloss import gloss_task
from digest.lessons.id_kinds import call_id_kinds, id_kinds, merged_kinds

#: at most this many words of one task are kept
MAX_WORDS = 10
#: at most this many cues a lesson keeps, from all the runs that support it
MAX_CUES = 48
#: the shortest word kept: pitfalls matches a prompt's keywords of four letters or more
MIN_LETTERS = 4
#: what a task means (``task_meaning``) is made of at most this many words, of at least
#: this many letters
MEANING_WORDS = 12
MEANING_LETTERS = 3
#: how much of a task is read
READ_MAX = 600

#: words that say nothing about what kind of task it is, in the languages the product reads:
#: function and conversational words, numbers and times (when is not what)
STOPWORDS = frozenset(
    """
    about above after again against also although always another anyone anything anyway
    around away back because been before being below between both came cannot come could
    couldn dear didn does doesn doing done down during each either else even ever every
    everything evening from further gets getting give given goes going gone good great guys
    have haven having hello help here hers herself himself hope however just know last like
    look made make many maybe might mine more morning afternoon most much must myself need
    needed needs never next none nothing okay only other ours ourselves over please possible
    quite rather really recently right said same says should since some someone something
    soon still such sure take tell than thank thanks that their them themselves then there
    these they thing things think this those though through thus today together tomorrow
    took under until upon very want wanted wants week well were what whatever when where
    whether which while will with within without would yeah year yesterday your yours
    yourself able asap already wondering trying tried hoping let's i'm i'd i've i'll can't
    don't won't it's that's there's what's instead ones
    sorry bother haha hiya cheers appreciate appreciated favour favor regards sincerely
    grateful kindly lovely awesome regarding concerning mind
    three four five seven eight nine twelve twenty hundred couple days hours minutes month
    months weeks years night weekend weekends monday tuesday wednesday thursday friday
    saturday sunday january february march april june july august september october november
    december
    aber alle allem allen aller alles also auch bitte brauche danke dann dass deine dein denn
    diese dieser dieses doch eine einem einen einer eines etwas euch guten habe haben hallo
    hatte hier ihre ihren immer jetzt kann kein keine mein meine meinen meiner mich möchte
    möchten nach nicht noch oder schon sehr sein seine sich sind über unser unsere viel vielen
    weil wenn werde werden wieder wird wurde mehr
    algo como cual cuando desde donde esta este esto estos hola gracias hace hacer hasta mucho
    nada para pero poco porque puede puedo quiero quisiera sobre también tengo tiene todo
    todos unos usted ustedes buenas buenos favor necesito mismo
    aussi avec avoir bien bonjour cela cette comme dans donc elle elles encore être fait faire
    leur mais merci même moi notre nous pour pouvez pourriez peux plus quand quel quelle sans
    sont suis tout tous très votre vous voudrais veux
    aqui assim está estou isso mais meus minha minhas muito obrigado obrigada olá pelo pela
    pode posso quero seria você vocês
    anche ancora buongiorno ciao della delle dello grazie hanno molto nostro perché però
    quello questa questo sono sulla tutto vorrei voglio
    maar voor naar heeft hebben mijn jouw deze onze kunnen willen graag bedankt hallo niet
    ikke inte gerne gärna skulle kunne kunna ville eller også också fordi eftersom dette
    detta hvad hvor takk tack mycket meget hilsen
    """.split()  # noqa: SIM905
)
#: words of three letters that say nothing about what kind of task it is (``task_meaning``
#: keeps the others: "car", "bag", "gym", "sim")
SHORT_STOPWORDS = frozenset(
    """
    the and for you can get but not any our was has had did are its his her him she who why
    how all one two six ten out off own too now new old yet may way day got let say see put
    try use ask due per via etc hey yes lot bit far few end set got due ago age big bad top
    also won don isn aren wasn didn hasn hadn pls thx plz asap i'm i'd
    der die das und ich sie ihr ein mit von zum zur den dem des aus auf bei was wie wer uns
    les une pour que qui est par sur pas son ses mes tes nos vos moi toi lui oui non
    del los las por con una mis tus sus muy han hay ser ver dos era fue sin
    tre che gli nel sul mio mia suo sua era
    het een van met ons ook wat wie hoe kun kan wil zou dat die nog wel heb bij uit
    jag jeg mig dig sig det att och som til för på han hon hun vil ska har var min din
    """.split()  # noqa: SIM905
)
#: words of a language that capitalises its nouns (German): there a capital is not a name
_NOUNS_CAPITALISED = frozenset(
    "ich und die der das den dem nicht ist sie meine mein bitte möchte eine ein mit für".split()  # noqa: SIM905
)

_TOKEN = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?|[.!?\n]+")


#: tasks a process remembers the words of, and their bytes (``digest.bounded``): an event's
#: task is read for its cues, for its meaning (each new lesson's tasks), and again by each
#: compose's replay probes
TASKS_KEPT, TASKS_BYTES = 1024, 1 * 2**20


@memo(TASKS_KEPT, TASKS_BYTES, digest_keys=True)
def _tokens(task: str) -> tuple[tuple[str, bool], ...]:
    """The task's words, each with whether it opens a sentence."""
    # ids masked before the sentences are told apart ("lina.m@studio-north.io" is one)
    text = request_first(mask_ids(unicodedata.normalize("NFKC", str(task))[:REQUEST_READ]))
    text = text[:READ_MAX]
    text = re.sub(r"<\w+>", " ", text)  # what mask_ids left of an id, an address or a URL
    found: list[tuple[str, bool]] = []
    opens = True
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if token[0] in ".!?\n":
            opens = True
            continue
        found.append((sys.intern(token.replace("’", "'")), opens))  # words recur
        opens = False
    return tuple(found)


def _capitalised(word: str) -> bool:
    return word[:1].isupper()


def telling_words(task: str, limit: int = MAX_WORDS, *, shortest: int = MIN_LETTERS) -> list[str]:
    """At most ``limit`` words of ``task`` that say what kind of task it is, lowercased, in
    the order the task says them (see the module's docstring); words of ``shortest`` letters
    or more (below ``MIN_LETTERS``, not ``SHORT_STOPWORDS``)."""
    tokens = _tokens(task)
    names_are_capitalised = not any(word.casefold() in _NOUNS_CAPITALISED for word, _ in tokens)
    kept: dict[str, None] = {}
    for word, opens in tokens:
        if names_are_capitalised and not opens and _capitalised(word):
            continue  # a name: it tells nothing about the next task of this kind
        lowered = word.casefold()
        if lowered in STOPWORDS:
            continue
        lowered = lowered.split("'", 1)[0]  # "customer's" → "customer"
        if len(lowered) < shortest or lowered in STOPWORDS:
            continue
        if len(lowered) < MIN_LETTERS and lowered in SHORT_STOPWORDS:
            continue
        kept[lowered] = None
        if len(kept) == limit:
            break
    return list(kept)


#: tasks whose meaning a process remembers, and their bytes (``digest.bounded``): a lesson's
#: task is read for its vector when the event is reflected, and again as a prompt by each
#: compose's replay probes
MEANINGS_KEPT, MEANINGS_BYTES = 1024, 2**20


@memo(MEANINGS_KEPT, MEANINGS_BYTES, digest_keys=True)
def task_meaning(task: str) -> str:
    """What a task is embedded as, by an inline embedder (the static table), for a lesson's
    tasks (``digest.lessons.vectors``) and a prompt alike (``digest.retrieve.prompt_meaning``):
    its telling words, short ones too ("car", "bag", "gym": what a task is about, though too
    short to be a cue), read as English where the table cannot read them
    (``digest.identity.task_gloss``)."""
    return gloss_task(" ".join(telling_words(task, MEANING_WORDS, shortest=MEANING_LETTERS)))


def event_cues(kind: str, payload: dict[str, Any] | None) -> list[str]:
    """The cues an event gives the lessons it teaches or supports: a run's task's telling
    words, then the kinds of ids its task names and its calls passed
    (``digest.lessons.id_kinds``); nothing for other events (an owner's question or an
    operator's draft is already the lesson's own trusted text)."""
    if kind != "run_outcome" or not isinstance(payload, dict):
        return []
    task = str(payload.get("task") or "")
    # and the kinds of ids it names or its calls passed ("INC-5531": ``digest.lessons.id_kinds``)
    kinds = merged_kinds(id_kinds(task), call_id_kinds(payload.get("tool_calls")))
    return [*telling_words(task), *kinds]


def merged(cues: list[str] | None, more: list[str]) -> list[str]:
    """``cues`` and then the words of ``more`` it lacks, at most ``MAX_CUES``."""
    kept = dict.fromkeys(cues or ())
    for word in more:
        if len(kept) >= MAX_CUES:
            break
        kept.setdefault(word, None)
    return list(kept)[:MAX_CUES]


# --- what a user asks, before the chatter around it -------------------------------------------
# A message's sentences reordered so that those that ask come first (issue 24 point 5).
#
# A first message is often wrapped: a greeting, how the week went, the request, thanks and a
# signature ("Hello!! Hope your day is going well :) So I've been meaning to get my dad
# something for his birthday. Could you please purchase a leather wallet for him? Thanks a
# million, Priya"). What a task is (``telling_words``, ``task_meaning``: at most a handful)
# and what a prompt is matched by (``digest.retrieve.prompt_keywords``: its first keywords)
# are read from the start of the text, so the chatter before a request would fill them.
# ``request_first`` puts the sentences that ask (a request marker: "could you",
# "please", "kannst du", "pourriez", "puedes", "kun je", "kan du" …, or a question) first,
# those that say what the writer wants ("I need", "I'd like", "je voudrais", "vorrei") next,
# then those that neither ask nor make conversation, and those that only make conversation
# (greetings, thanks, hopes, apologies, sign-offs) last, each group in the message's order.
# Nothing is dropped: the words after the request still count when the request is short. A
# message of one sentence, or whose sentences are all of one rank, reads as it came. Pure and
# cheap (one pass over at most ``REQUEST_READ`` characters).

#: how much of a message is read for its request (what a task is, and a prompt's keywords, come
#: from its start)
REQUEST_READ = 1200

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


_REQUEST_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")

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
    """``text``'s sentences (each with its end mark), the first ``REQUEST_READ`` characters."""
    return [found.group(0) for found in _sentence().finditer(text[:REQUEST_READ]) if found.group(0)]


def rank_of(sentence: str) -> int:
    """0: the sentence asks something of whom it addresses (or is a question); 1: it says what
    the writer wants; 3: it only makes conversation; 2: none of these."""
    words = [word.casefold().replace("’", "'") for word in _REQUEST_WORD.findall(sentence)]
    if _markers(words, _ASKS) or sentence.rstrip().endswith("?"):
        return 0
    if _markers(words, _WISHES):
        return 1
    return 3 if _markers(words, _CHATS) else 2


def request_first(text: str) -> str:
    """``text`` (its first ``REQUEST_READ`` characters) with the sentences that ask first, those
    that only make conversation last, one sentence a line; as it came when it has one
    sentence or all its sentences are of one rank (``rank_of``)."""
    parts = sentences(text)
    if len(parts) < 2:
        return text[:REQUEST_READ]
    ranks = [rank_of(part) for part in parts]
    if len(set(ranks)) < 2:
        return text[:REQUEST_READ]
    ordered = sorted(range(len(parts)), key=lambda i: (ranks[i], i))
    return "\n".join(parts[i].strip(" |\n") for i in ordered)
