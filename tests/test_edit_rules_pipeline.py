"""An edit can teach several rules (issue 24, DESIGN §8a), end to end through the one reflect
core: each rule is its own lesson with its own identity; a shared diff shape merges only the
rule it describes (the tone), never two different content rules; the same edit with other ids
is a NOOP on every lesson it taught.

Each property runs under the offline judge, and under a scripted model that words its lessons
its own way (no tags, the operator's reply with its ids) and, asked to reconcile, NOOPs every
candidate into the first lesson it is shown: fingerprints and the trust of a NOOP across keys
keep every content rule anyway.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import select

import digest
from digest import fingerprint as fp
from digest.db import session_scope
from digest.model.scripted import Messages, event_of, rules, scripted_model, step_of
from digest.models import DigestRun, Judgement, Lesson, LessonHistory
from digest.pipeline import drain
from digest.tenants import find_agent
from tests.conftest import lessons_for_event, use_model, with_batch_size
from tests.reflect.helpers import noop_into_the_first

AGENT = "bot"

#: two edits with one diff shape (greeting kept; exclamation marks and emoji removed) that
#: teach two different content rules
REFUNDS = (
    "Hi Ana!!! Your refund for order 4411 is on its way 😀",
    "Hi Ana. Refunds for order 4411 take five business days to reach your account.",
)
PARCELS = (
    "Hi Bob!!! Your parcel for order 5120 is on its way 😀",
    "Hi Bob. Parcels for order 5120 leave our Oslo warehouse on weekdays.",
)
#: the refund edit again, for another customer and order
REFUNDS_AGAIN = (
    "Hi Kim!!! Your refund for order 98761 is on its way 😀",
    "Hi Kim. Refunds for order 98761 take five business days to reach your account.",
)


def worded_model(messages: Messages) -> str:
    """Reflect on an edit: a tone lesson and a content lesson in its own words (the reply
    quoted with its ids, no tags naming a rule). Reconcile: NOOP every candidate into the
    first lesson shown."""
    step = step_of(messages)
    if step == "reconcile":
        return noop_into_the_first(messages)
    event = event_of(messages) if step == "reflect" else None
    if event is None or event["kind"] != "operator_edit":
        return rules(messages)
    final = event["payload"]["final"]
    return (
        "<lesson><situation>Answering a customer</situation>"
        "<correction>Keep the tone calm: never use exclamation marks or emoji.</correction>"
        "<tags>style</tags></lesson>\n"
        "<lesson><situation>Answering a customer</situation>"
        f"<correction>Tell the customer what the operator told them: {final}</correction>"
        "<tags>replies</tags></lesson>"
    )


@pytest.fixture(params=["offline", "scripted", "scripted-one-at-a-time"])
def judge(
    request: pytest.FixtureRequest, sqlite_env: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """The offline judge; a model of its own words in batches; and one event at a time,
    judged and reconciled with no transaction open as a remote model's events are."""
    if request.param == "offline":
        yield "offline/rules"
        return
    if request.param == "scripted-one-at-a-time":
        with_batch_size(monkeypatch, 1)
    with scripted_model(worded_model) as model:
        use_model(monkeypatch, model.name)
        yield model.name


def edit(tenant: str, reply: tuple[str, str]) -> int:
    return digest.record_edit(tenant, AGENT, original=reply[0], final=reply[1])


def active_lessons(tenant: str) -> list[Lesson]:
    with session_scope() as session:
        agent = find_agent(session, tenant, AGENT)
        return list(
            session.scalars(
                select(Lesson)
                .where(Lesson.agent_id == agent.id, Lesson.status == "active")
                .order_by(Lesson.id)
            )
        )


def by_family(lessons: list[Lesson]) -> dict[str, list[Lesson]]:
    found: dict[str, list[Lesson]] = {}
    for lesson in lessons:
        found.setdefault(str(fp.edit_family(lesson.fingerprint)), []).append(lesson)
    return found


def test_an_edit_that_fixes_tone_and_content_teaches_two_lessons(judge: str, tenant: str) -> None:
    event_id = edit(tenant, REFUNDS)
    drain()
    lessons = lessons_for_event(event_id)
    assert len(lessons) == 2
    families = by_family(lessons)
    assert set(families) == {"content", "tone"}
    [content], [tone] = families["content"], families["tone"]
    assert "five business days" in content.correction
    assert "exclamation" not in content.correction.lower()
    assert "exclamation" in tone.correction and "five business days" not in tone.correction
    if judge == "offline/rules":
        # the operator's words as a quotation, its ids masked
        assert "«Refunds for order ‹id› take five business days" in content.correction
        assert "4411" not in content.correction


def test_edits_sharing_a_shape_keep_their_content_rules_apart(judge: str, tenant: str) -> None:
    refunds, parcels = edit(tenant, REFUNDS), edit(tenant, PARCELS)
    drain()
    families = by_family(active_lessons(tenant))
    assert sorted(families) == ["content", "tone"]
    contents = families["content"]
    assert len(contents) == 2  # never NOOPed into each other, nor into the tone rule
    assert any("five business days" in c.correction for c in contents)
    assert any("Oslo warehouse" in c.correction for c in contents)
    assert all(c.support_count == 1 for c in contents)
    [tone] = families["tone"]  # the rule the shared shape describes: one lesson, both edits
    assert tone.support_count == 2
    assert {tone.id} == {lesson.id for lesson in lessons_for_event(refunds)} & {
        lesson.id for lesson in lessons_for_event(parcels)
    }


def test_the_same_edit_with_other_ids_is_a_noop_on_every_lesson(judge: str, tenant: str) -> None:
    edit(tenant, REFUNDS)
    drain()
    before = {lesson.id: lesson.support_count for lesson in active_lessons(tenant)}
    again = edit(tenant, REFUNDS_AGAIN)
    drain()
    after = {lesson.id: lesson.support_count for lesson in active_lessons(tenant)}
    assert set(after) == set(before) and len(after) == 2
    assert all(after[i] == before[i] + 1 for i in after)
    assert {lesson.id for lesson in lessons_for_event(again)} == set(after)
    with session_scope() as session:
        run = session.scalars(select(DigestRun).where(DigestRun.event_id == again)).one()
        reused = session.scalars(select(Judgement.reused)).all()
    assert (run.n_add, run.n_update, run.n_delete, run.n_noop) == (0, 0, 0, 2)
    assert run.llm_calls == 0  # the stored judgement of the same edit stands
    assert list(reused) == [1]


#: two edits of different drafts that add one fact in other words (and calm the tone)
CALLBACK_HOURS = (
    (
        "Thanks for your patience!!! Someone will call you back!!!",
        "Thanks for your patience. Someone will call you back between 8:00 and 18:00 CET on a"
        " weekday, when our support line is open.",
    ),
    (
        "We got your message!!! We will phone you back!!!",
        "We got your message. We will phone you back during support hours, 8:00 to 18:00 CET,"
        " Monday to Friday.",
    ),
)


def test_the_same_fact_added_to_two_drafts_reaches_the_judge(judge: str, tenant: str) -> None:
    first, second = (
        digest.record_edit(tenant, AGENT, original=o, final=f, context="callback request")
        for o, f in CALLBACK_HOURS
    )
    drain()
    with session_scope() as session:
        run = session.scalars(select(DigestRun).where(DigestRun.event_id == second)).one()
    # the content keys differ (other words): the judge was asked whether they are one fact
    assert run.n_fast_path < run.n_add + run.n_update + run.n_delete + run.n_noop
    families = by_family(active_lessons(tenant))
    [tone] = families["tone"]
    assert tone.support_count == 2
    if judge == "offline/rules":
        # one fact, one lesson, citing both edits (in the newer words)
        [content] = families["content"]
        assert {content.id} <= {lesson.id for lesson in lessons_for_event(first)}
        assert {content.id} <= {lesson.id for lesson in lessons_for_event(second)}
        assert "8:00 to 18:00 CET" in content.correction
    else:
        # the scripted judge NOOPs it into the first lesson shown: one fact in other words,
        # the same figures, nothing reads them apart, so its NOOP stands (DESIGN §8a: the judge
        # decides): one lesson, citing both edits
        [content] = families["content"]
        assert {content.id} <= {lesson.id for lesson in lessons_for_event(first)}
        assert {content.id} <= {lesson.id for lesson in lessons_for_event(second)}


#: two edits that calm the tone in overlapping ways (one also drops the emoji) and restate one
#: fact in other words, and a third whose fact reads alike and says something else
BACKUP = (
    (
        "Hi!!! Your laptop repair is booked!!! 😀",
        "Hi, your laptop repair is booked. Please back up your data before you hand the laptop in.",
    ),
    (
        "Hey!!! The phone repair is scheduled!!!",
        "Hey, the phone repair is scheduled. Make a backup of your data before you bring the"
        " phone in.",
    ),
    (
        "Hello!!! The tablet repair is booked!!!",
        "Hello, the tablet repair is booked. Please remove the case and the screen protector"
        " before you hand the tablet in.",
    ),
)


def test_tone_rules_grow_into_one_and_a_paraphrase_is_the_same_content(
    judge: str, tenant: str
) -> None:
    laptop, phone, tablet = (edit(tenant, reply) for reply in BACKUP)
    drain()
    families = by_family(active_lessons(tenant))
    if judge != "offline/rules":
        # this model NOOPs every candidate into the first lesson shown. Across keys its NOOP
        # stands where nothing reads the two apart (DESIGN §8a: the judge decides): the phone's
        # backup advice is the laptop's in other words, rightly one lesson; the tablet's case
        # advice shares the reply's frame and no figure or negation reads it apart, so this
        # wrong judge's NOOP stands too. Its edit stays cited as the lesson's evidence.
        [content] = families["content"]
        for event_id in (laptop, phone, tablet):
            assert content.id in {lesson.id for lesson in lessons_for_event(event_id)}
        return
    [tone] = families["tone"]  # "no exclamation marks" in all three: one tone
    assert tone.support_count == 3
    assert "exclamation" in tone.correction
    contents = families["content"]
    assert len(contents) == 2  # the backup advice twice in other words; the case advice apart
    [backup] = [c for c in contents if "backup" in c.correction or "back up" in c.correction]
    [case] = [c for c in contents if c is not backup]
    assert "screen protector" in case.correction and case.support_count == 1
    cited = {lesson.id for lesson in lessons_for_event(laptop)} & {
        lesson.id for lesson in lessons_for_event(phone)
    }
    assert cited == {tone.id, backup.id}
    assert backup.id not in {lesson.id for lesson in lessons_for_event(tablet)}


def test_a_content_rule_never_merges_into_the_tone_rule(judge: str, tenant: str) -> None:
    # a tone-only edit first, then the same tone change with a fact added
    edit(tenant, ("Thanks!!! Got it!!!", "Thanks, got it."))
    both = edit(
        tenant, ("Sure!!! We'll ship it!!!", "Sure, we'll ship it. Orders over 50 GBP ship free.")
    )
    drain()
    families = by_family(active_lessons(tenant))
    [content] = families["content"]
    assert "50 GBP" in content.correction and "50" not in families["tone"][0].correction
    assert content.id in {lesson.id for lesson in lessons_for_event(both)}


#: an operator adds a sentence to one reply, and takes the same sentence out of a later one
ADDED = ("Your order ships tomorrow.", "Your order ships tomorrow. Delivery is free over 40 EUR.")
TAKEN_OUT = (
    "Your order 7712 is packed. Delivery is free over 40 EUR.",
    "Your order 7712 is packed.",
)


def test_an_edit_that_takes_out_what_an_earlier_edit_added_supersedes_it(
    sqlite_env: str, tenant: str
) -> None:
    """The offline judge (embedded): the later edit's left-out rule reverses the earlier
    edit's content rule (the same sentence, said and then taken out): the old lesson is
    superseded by the new one, with why in its history."""
    first = edit(tenant, ADDED)
    drain()
    [said] = lessons_for_event(first)
    second = edit(tenant, TAKEN_OUT)
    drain()
    [left_out] = lessons_for_event(second)
    assert "free over 40 EUR" in said.correction and "Leave out" in left_out.correction
    with session_scope() as session:
        old, new = session.get(Lesson, said.id), session.get(Lesson, left_out.id)
        assert old is not None and new is not None
        assert (old.status, old.superseded_by_id, new.status) == ("superseded", new.id, "active")
        why = session.scalar(
            select(LessonHistory.reason).where(
                LessonHistory.lesson_id == old.id, LessonHistory.op == "DELETE"
            )
        )
    assert why is not None and "reversed" in why


def test_an_edit_that_takes_out_other_content_supersedes_nothing(
    sqlite_env: str, tenant: str
) -> None:
    """Content left out that the earlier rule does not say (another figure) stays apart."""
    edit(tenant, ADDED)
    drain()
    edit(
        tenant,
        ("Your order 7712 is packed. Delivery is free over 90 EUR.", "Your order 7712 is packed."),
    )
    drain()
    active = active_lessons(tenant)
    assert len(active) == 2 and all(lesson.superseded_by_id is None for lesson in active)


#: a Czech-like inflected reversal: the first edit adds that the courier takes cash
#: ("hotovost"), a later one says couriers no longer take it, the nouns in other cases
CASH_ADDED = (
    "Dobrý den, zásilku doručíme zítra.",
    "Dobrý den, zásilku doručíme zítra. Platbu v hotovosti převezme přímo kurýr.",
)
CASH_ENDED = (
    "Dobrý den, objednávka stojí 900 Kč, zaplatit můžete v hotovosti kurýrovi.",
    "Dobrý den, objednávka stojí 900 Kč. Platbu přijímáme jen kartou předem, kurýři již "
    "nepřebírají hotovost.",
)


def test_an_edit_that_reverses_an_earlier_rule_in_other_inflections_supersedes_it(
    sqlite_env: str, tenant: str
) -> None:
    """The offline judge reads a reversal's words against the old content rule's in their
    inflections ("hotovost"/"hotovosti", "kurýři"/"kurýr"): the old rule is superseded."""
    first = edit(tenant, CASH_ADDED)
    drain()
    [cash] = lessons_for_event(first)
    edit(tenant, CASH_ENDED)
    drain()
    with session_scope() as session:
        old = session.get(Lesson, cash.id)
        assert old is not None and old.status == "superseded", (old.status, old.title)


#: two edits that add the same figures with the same unit about two different things: the
#: figures alone do not make them one rule
CARD_REFUNDS = (
    "Hi Lea!!! Your card refund is done!!!",
    "Hi Lea. Your card refund is done; card refunds take 5 to 7 business days to appear on "
    "your statement.",
)
SUPPLIER_PAYMENTS = (
    "Hi!!! We sent the bank transfer!!!",
    "Hi. We sent the bank transfer; supplier payments take 5 to 7 business days to arrive.",
)


@pytest.mark.parametrize("embedding", ["none", "static"])
@pytest.mark.parametrize("with_context", [True, False], ids=["context", "no-context"])
def test_the_same_figures_about_two_things_stay_two_content_rules(
    judge: str, tenant: str, embedding: str, with_context: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # without a context both edits are "a reply like this one": no evidence of one rule
    monkeypatch.setenv("DIGEST_EMBEDDING_MODEL", embedding)
    contexts = ("customer asks where her card refund is", "supplier asks about an unpaid invoice")
    for (original, final), context in zip(
        (CARD_REFUNDS, SUPPLIER_PAYMENTS), contexts if with_context else (None, None), strict=True
    ):
        digest.record_edit(tenant, AGENT, original=original, final=final, context=context)
        drain()
    contents = by_family(active_lessons(tenant))["content"]
    assert len(contents) == 2, [c.correction for c in contents]
    assert any("card refunds take 5 to 7" in c.correction for c in contents)
    assert any("supplier payments take 5 to 7" in c.correction for c in contents)
    assert all(c.support_count == 1 for c in contents)
