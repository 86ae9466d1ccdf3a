"""digest.fewshot: ``digest.examples``, few-shot (draft, final) pairs from an agent's accepted
operator edits (issue 16, point 4). Relevance and its order, ``k``, what "accepted" means (an
active lesson still cites the edit), tenant, agent and contact scoping, the injection screen
over the project's corpus, cleaning and secret masking, and never raising (PostgreSQL unless
named otherwise)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

import digest
from digest.db import session_scope
from digest.fewshot import MAX_K, Example, _edit, shown
from digest.lessons.service import set_lesson_status
from digest.logs import capture_logs
from digest.models import Agent, Event, Lesson, utcnow
from digest.pipeline import drain
from tests.conftest import _reset_process_state, lessons_for_event
from tests.injection_corpus import BENIGN, INJECTIONS

AGENT = "bot"
DRAFT = "Thanks for waiting, we will look into it."
REPLY = "Thanks for waiting; a colleague replies within one working day."


def edit(tenant: str, context: str, original: str, final: str | None, **options: Any) -> int:
    return digest.record_edit(
        tenant, options.pop("agent", AGENT), original=original, final=final, context=context,
        **options,
    )  # fmt: skip


def reflect(tenant: str) -> None:
    """Reflect the tenant's pending events in this process (offline/rules)."""
    results = drain(tenant=tenant)
    assert results and {r.status for r in results} <= {"reflected", "skipped"}, results


def accepted(*event_ids: int) -> None:
    """Each edit was reflected and an active lesson cites it (what the tests build on)."""
    for event_id in event_ids:
        statuses = {lesson.status for lesson in lessons_for_event(event_id)}
        assert "active" in statuses, (event_id, statuses)


def ids(found: list[Example]) -> list[int]:
    return [example.event_id for example in found]


# --- relevance, order, k -------------------------------------------------------------------------


def test_the_most_relevant_accepted_edits_come_first(
    services_env: dict[str, str], tenant: str
) -> None:
    mug = edit(
        tenant, "Customer wants a refund for a broken mug",
        "We will refund you tomorrow.",
        "Refunds for broken items take 5 working days once the mug is back with us.",
    )  # fmt: skip
    refund = edit(
        tenant, "Customer asks for a refund of the shipping costs",
        "Shipping costs are never refunded.",
        "We refund shipping costs when the order arrived damaged.",
    )  # fmt: skip
    parcel = edit(
        tenant, "Customer asks where the parcel is",
        "Your parcel arrives tomorrow for sure!",
        "Your parcel is on its way; expect 2-3 working days.",
    )  # fmt: skip
    reflect(tenant)
    accepted(mug, refund, parcel)

    found = digest.examples(tenant, AGENT, "I want a refund for my broken mug", k=3)

    # two of the prompt's keywords ("refund", "broken") beat one; the parcel matches none
    assert ids(found) == [mug, refund]
    first = found[0]
    assert first == Example(
        draft="We will refund you tomorrow.",
        final="Refunds for broken items take 5 working days once the mug is back with us.",
        event_id=mug,
        created_at=first.created_at,
    )
    assert first.created_at.tzinfo is not None
    assert abs(first.created_at - utcnow()) < timedelta(minutes=5)
    assert ids(digest.examples(tenant, AGENT, "I want a refund for my broken mug")) == [mug, refund]
    assert ids(digest.examples(tenant, AGENT, "a refund for my broken mug", k=1)) == [mug]
    assert ids(digest.examples(tenant, AGENT, "where is my PARCEL")) == [parcel]
    # the context ranks an edit, but is never returned (it is often the customer's words)
    assert ids(digest.examples(tenant, AGENT, "costs")) == [refund]
    assert not hasattr(first, "context")


def test_ties_go_to_the_newest_edit(services_env: dict[str, str], tenant: str) -> None:
    older = edit(tenant, "Invoice question", "Invoices are sent yearly.", "We send the invoice "
                 "as a PDF on the first day of each month.")  # fmt: skip
    newer = edit(tenant, "Invoice question again", "No invoice for you.", "Every order gets an "
                 "invoice by e-mail within one hour.")  # fmt: skip
    reflect(tenant)
    accepted(older, newer)
    assert ids(digest.examples(tenant, AGENT, "Where is the invoice?", k=2)) == [newer, older]


def test_k_is_capped_and_non_positive_k_gives_nothing(
    services_env: dict[str, str], tenant: str
) -> None:
    made = [
        edit(tenant, f"Refund request number {n}", f"No refund, sorry ({n}).",
             f"Refund approved after checking order {n}; it reaches your card in 5 days.")
        for n in range(MAX_K + 2)
    ]  # fmt: skip
    reflect(tenant)
    accepted(*made)
    found = digest.examples(tenant, AGENT, "refund please", k=50)
    assert len(found) == MAX_K and len(set(ids(found))) == MAX_K
    assert ids(found) == sorted(made, reverse=True)[:MAX_K]  # equally relevant: newest first
    with capture_logs() as logs:
        assert digest.examples(tenant, AGENT, "refund please", k=0) == []
        assert digest.examples(tenant, AGENT, "refund please", k=-3) == []
    assert logs == []  # not an error: as pitfalls, k < 1 asks for nothing


def test_nothing_matching_gives_an_empty_list(services_env: dict[str, str], tenant: str) -> None:
    edit(tenant, "Refund question", "No refunds.", "Refunds take 5 working days.")
    reflect(tenant)
    assert digest.examples(tenant, AGENT, "what is the weather like") == []
    assert digest.examples(tenant, AGENT, "") == []
    assert digest.examples(tenant, AGENT, "1182 ok the and") == []  # no keyword at all


# --- what "accepted" means -----------------------------------------------------------------------


def test_only_edits_an_active_lesson_still_cites_are_examples(
    services_env: dict[str, str], tenant: str
) -> None:
    # rewrites, each teaching a rule of its own: three lessons, one per edit
    kept = edit(tenant, "Refund question", "Refunds are slow and take weeks.",
                "Refunds reach your card within five working days.")  # fmt: skip
    retired = edit(tenant, "Refund of a gift card", "Gift cards are refunded in cash.",
                   "Gift card refunds go onto a new gift card.")  # fmt: skip
    expiring = edit(tenant, "Refund of shipping", "We refund shipping costs every time.",
                    "We refund shipping costs for damaged parcels only.")  # fmt: skip
    reflect(tenant)
    accepted(kept, retired, expiring)
    cited = [{lesson.id for lesson in lessons_for_event(e)} for e in (kept, retired, expiring)]
    assert not (cited[0] & cited[1] or cited[0] & cited[2] or cited[1] & cited[2]), cited
    rejected = edit(tenant, "Refund question", "Refund denied, go away.", None)
    tiny = edit(tenant, "Refund question", "Refunds take 5 working days.",
                "Refunds take 5 working days!")  # fmt: skip
    reflect(tenant)  # a rejected draft has no final; an edit this small is skipped by policy
    waiting = edit(tenant, "Refund question", "Refunds are slow.",
                   "Refunds reach your card within 5 working days.")  # fmt: skip
    prompt = "Can I get a refund?"
    assert sorted(ids(digest.examples(tenant, AGENT, prompt, k=10))) == [kept, retired, expiring]

    for lesson in lessons_for_event(retired):
        if lesson.status == "active":
            set_lesson_status(tenant, AGENT, lesson.id, "disabled", reason="outdated", by="owner")
    with session_scope() as session:
        session.execute(
            update(Lesson)
            .where(Lesson.id.in_([lesson.id for lesson in lessons_for_event(expiring)]))
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )
    found = digest.examples(tenant, AGENT, prompt, k=10)
    assert ids(found) == [kept]  # the kept index notices the set changed
    assert {rejected, tiny, waiting}.isdisjoint(ids(found))


# --- scoping -------------------------------------------------------------------------------------


def test_another_tenants_or_agents_edits_never_show(
    services_env: dict[str, str], tenant: str
) -> None:
    final = "Refunds take 5 working days once the item is back."
    own = edit(tenant, "Refund question", "No refunds.", final)
    other_agent = edit(tenant, "Refund question", "No refunds.", final, agent="other-bot")
    other_tenant = edit(f"{tenant}-x", "Refund question", "No refunds.", final)
    reflect(tenant)
    reflect(f"{tenant}-x")
    accepted(own, other_agent, other_tenant)
    assert ids(digest.examples(tenant, AGENT, "refund", k=10)) == [own]
    assert ids(digest.examples(tenant, "other-bot", "refund", k=10)) == [other_agent]
    assert ids(digest.examples(f"{tenant}-x", AGENT, "refund", k=10)) == [other_tenant]


def test_unknown_names_give_an_empty_list_and_create_nothing(
    services_env: dict[str, str], tenant: str
) -> None:
    edit(tenant, "Refund question", "No refunds.", "Refunds take 5 working days.")
    reflect(tenant)
    with capture_logs() as logs:
        assert digest.examples(tenant, "nobody", "refund") == []
        assert digest.examples(f"{tenant}-unknown", AGENT, "refund") == []
        assert digest.examples(tenant, "Bot\u200b", "refund") == []  # not a valid key either
    assert logs == []  # as pitfalls: nobody known is no fault
    with session_scope() as session:
        names = session.scalars(select(Agent.name).where(Agent.name.like("nobody%"))).all()
    assert names == []


def test_a_contacts_edits_show_only_in_that_contacts_conversation(
    services_env: dict[str, str], tenant: str
) -> None:
    shared = edit(tenant, "Parcel question", "Your parcel arrives tomorrow for sure!",
                  "Your parcel is on its way; expect 2-3 working days.")  # fmt: skip
    hers = edit(tenant, "Parcel question from Maria", "Maria, your parcel is lost.",
                "Maria, your parcel 1182 is delayed at the depot; it ships on Monday.",
                contact_id="c-1")  # fmt: skip
    reflect(tenant)
    accepted(shared, hers)
    prompt = "Where is my parcel?"
    assert ids(digest.examples(tenant, AGENT, prompt)) == [shared]
    assert ids(digest.examples(tenant, AGENT, prompt, contact_id="c-2")) == [shared]
    assert sorted(ids(digest.examples(tenant, AGENT, prompt, contact_id="c-1"))) == [shared, hers]

    # Promoted to the whole agent, her lesson still quotes her conversation: hers stays hers.
    with session_scope() as session:
        session.execute(
            update(Lesson)
            .where(Lesson.id.in_([lesson.id for lesson in lessons_for_event(hers)]))
            .values(scope="agent", contact_id=None)
        )
    assert ids(digest.examples(tenant, AGENT, prompt, contact_id="c-2")) == [shared]
    assert hers in ids(digest.examples(tenant, AGENT, prompt, contact_id="c-1"))


# --- the screen ----------------------------------------------------------------------------------


def _tag(n: int) -> str:
    """A keyword of letters only that no other edit holds: ``topicbc`` for 12."""
    return "topic" + "".join(chr(ord("a") + int(d)) for d in str(n))


def test_an_edit_carrying_an_injection_is_never_returned(
    services_env: dict[str, str], tenant: str
) -> None:
    """Every attack of the corpus, in the final and in the draft, each edit findable by a
    keyword of its own (in its context); every benign text of the corpus as a control."""
    cases: dict[int, tuple[str, bool]] = {}
    for n, attack in enumerate(INJECTIONS):
        as_final = edit(tenant, f"Customer asks about {_tag(2 * n)}", DRAFT, attack)
        as_draft = edit(tenant, f"Customer asks about {_tag(2 * n + 1)}", attack, REPLY)
        cases[as_final] = (_tag(2 * n), False)
        cases[as_draft] = (_tag(2 * n + 1), False)
    for n, text in enumerate(BENIGN, start=2 * len(INJECTIONS)):
        cases[edit(tenant, f"Customer asks about {_tag(n)}", DRAFT, text)] = (_tag(n), True)
    reflect(tenant)
    accepted(*cases)  # trusted: an operator's edit is never quarantined; the screen is ours

    wrong = {}
    with capture_logs() as logs:
        for event_id, (tag, returned) in cases.items():
            found = ids(digest.examples(tenant, AGENT, f"about {tag}"))
            if (event_id in found) is not returned:
                wrong[event_id] = found
    assert wrong == {}
    screened = {e["event_id"] for e in logs if e["event"] == "example_screened_out"}
    assert screened == {event_id for event_id, (_, returned) in cases.items() if not returned}


@pytest.mark.parametrize("attack", INJECTIONS)
def test_the_screen_reads_both_texts_even_buried(attack: str) -> None:
    now = utcnow()
    buried = f"Thanks for your patience with order 1182. {attack}"
    assert _edit(1, {"original": DRAFT, "final": buried}, now) is None
    assert _edit(1, {"original": buried, "final": "We ship in 3 days."}, now) is None


@pytest.mark.parametrize("text", BENIGN)
def test_ordinary_replies_pass_the_screen(text: str) -> None:
    found = _edit(1, {"original": DRAFT, "final": text, "context": "x"}, utcnow())
    assert found is not None and found.example.final == text


def test_returned_text_is_cleaned_and_its_secrets_masked(
    services_env: dict[str, str], tenant: str
) -> None:
    key = "sk-proj-" + "a1b2c3d4" * 4
    final = (
        "Your refund\u202e is on its way.\r\n\x1b[2JUse the portal token "
        f"{key} at login.\u200b\tThanks!"
    )
    event_id = edit(tenant, "Refund question", "No refund.", final)
    reflect(tenant)
    (found,) = digest.examples(tenant, AGENT, "refund")
    assert found.event_id == event_id
    assert found.final == (
        "Your refund is on its way.\n[2JUse the portal token sk-*** at login.\tThanks!"
    )
    assert shown("emoji 👩\u200d💻 and \u200cZWNJ") == "emoji 👩\u200d💻 and \u200cZWNJ"


# --- never raising -------------------------------------------------------------------------------


@pytest.fixture()
def broken_database(
    services_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Nothing listens on port 1; the test database is restored afterwards."""
    monkeypatch.setenv("DIGEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:1/nothing")
    _reset_process_state()
    yield
    monkeypatch.setenv("DIGEST_DATABASE_URL", services_env["DIGEST_DATABASE_URL"])
    _reset_process_state()


def test_a_database_fault_is_logged_and_gives_an_empty_list(
    tenant: str, broken_database: None
) -> None:
    with capture_logs() as logs:
        assert digest.examples(tenant, AGENT, "refund please") == []
    (entry,) = logs
    assert entry["event"] == "examples_failed" and entry["log_level"] == "error"
    assert entry["error"].startswith("OperationalError")
    assert "refund" not in entry["error"]  # no prompt text (the SQL parameters) in the log


def test_a_missing_schema_is_logged_and_gives_an_empty_list(
    services_env: dict[str, str], pg_admin: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIGEST_DATABASE_URL", pg_admin)  # no digest tables there
    _reset_process_state()
    with capture_logs() as logs:
        assert digest.examples(tenant, AGENT, "refund") == []
    assert [e["event"] for e in logs] == ["examples_failed"]
    assert "does not exist" in logs[0]["error"]


@pytest.mark.parametrize(
    ("args", "kwargs", "problem"),
    [
        (("t", AGENT, None), {}, "prompt must be a str, not NoneType"),
        (("t", AGENT, b"refund"), {}, "prompt must be a str, not bytes"),
        ((3, AGENT, "refund"), {}, "tenant must be a str, not int"),
        (("t", None, "refund"), {}, "agent must be a str, not NoneType"),
        (("t", AGENT, "refund", "2"), {}, "k must be an int, not str"),
        (("t", AGENT, "refund", 2.0), {}, "k must be an int, not float"),
        (("t", AGENT, "refund", True), {}, "k must be an int, not bool"),
        (("t", AGENT, "refund"), {"contact_id": 7}, "contact_id must be a str or None, not int"),
    ],
)
def test_bad_arguments_are_logged_and_never_raise(
    services_env: dict[str, str], args: tuple[Any, ...], kwargs: dict[str, Any], problem: str
) -> None:
    with capture_logs() as logs:
        assert digest.examples(*args, **kwargs) == []
    assert [(e["event"], e["log_level"], e["problem"]) for e in logs] == [
        ("examples_bad_argument", "error", problem)
    ]


# --- the embedded default, semantic relevance, the public surface --------------------------------


def test_examples_on_sqlite(sqlite_env: str, tenant: str) -> None:
    event_id = edit(tenant, "Customer asks about parcels", "Your parcel arrives tomorrow!",
                    "Your parcel is on its way; expect 2-3 working days.")  # fmt: skip
    reflect(tenant)
    (found,) = digest.examples(tenant, AGENT, "Where is my parcel?")
    assert found.event_id == event_id and found.created_at.tzinfo == UTC
    assert found.final == "Your parcel is on its way; expect 2-3 working days."


def test_with_an_embedding_model_a_paraphrase_finds_its_edit(
    services_env: dict[str, str], tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIGEST_EMBEDDING_MODEL", "local")
    _reset_process_state()
    parcel = edit(tenant, "Customer asks where the parcel is", "Your parcel arrives tomorrow!",
                  "Your parcel is on its way; expect 2-3 working days.")  # fmt: skip
    edit(tenant, "Customer asks for the VAT number on invoices", "We have no VAT number.",
         "Our VAT number is printed at the bottom of every invoice.")  # fmt: skip
    reflect(tenant)
    prompt = "my package hasn't been delivered yet"  # no keyword in common with either edit
    assert ids(digest.examples(tenant, AGENT, prompt, k=1)) == [parcel]
    monkeypatch.setenv("DIGEST_EMBEDDING_MODEL", "none")
    _reset_process_state()
    assert digest.examples(tenant, AGENT, prompt, k=1) == []  # words alone: nothing in common


def test_public_names_and_the_module_does_not_hide_the_function() -> None:
    import digest.fewshot  # the submodule is not named "examples": importing it hides nothing

    assert "examples" in digest.__all__ and "Example" in digest.__all__
    assert digest.examples is digest.fewshot.examples and callable(digest.examples)
    assert digest.Example is Example


def test_nothing_heavy_is_imported() -> None:
    code = (
        "import sys, digest; digest.examples('t', 'bot', 'refund');"
        " print(sorted(m for m in sys.modules if m.split('.')[0] in ('litellm', 'celery')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_reading_examples_writes_nothing(services_env: dict[str, str], tenant: str) -> None:
    event_id = edit(tenant, "Refund question", "No refunds.", "Refunds take 5 working days.")
    reflect(tenant)
    with session_scope() as session:
        before = session.execute(select(Event.updated_at).where(Event.id == event_id)).one()
        lessons = [(lsn.id, lsn.hit_count) for lsn in lessons_for_event(event_id)]
    assert ids(digest.examples(tenant, AGENT, "refund")) == [event_id]
    with session_scope() as session:
        assert session.execute(select(Event.updated_at).where(Event.id == event_id)).one() == before
    assert [(lsn.id, lsn.hit_count) for lsn in lessons_for_event(event_id)] == lessons


# --- the randomized holdout (issue 29) -----------------------------------------------------------


def test_with_a_turn_id_an_example_is_withheld_with_its_lesson_and_the_exposure_recorded(
    services_env: dict[str, str], tenant: str
) -> None:
    """An example goes with the lessons that cite it: on a turn where ``pitfalls``'s draw
    withholds a citing lesson, the example is withheld too (the next one takes its place), and
    each turn's exposure rows say what the agent was shown."""
    from digest.lessons.holdout import draw, flush_exposures
    from digest.models import HoldoutExposure, LessonEvidence
    from digest.tenants import set_tenant

    first = edit(tenant, "Refund question", "No refunds.", "Refunds take 5 working days.")
    second = edit(tenant, "Refund question again", "Refunds never.", "We refund within a week.")
    reflect(tenant)
    accepted(first, second)
    set_tenant(tenant, holdout_permille=500, create=False)
    with session_scope() as session:
        citing = {
            event_id: session.scalars(
                select(LessonEvidence.lesson_id).where(LessonEvidence.event_id == event_id)
            ).all()
            for event_id in (first, second)
        }
    agent_id = lessons_for_event(first)[0].agent_id
    active = {
        lsn.id for e in (first, second) for lsn in lessons_for_event(e) if lsn.status == "active"
    }

    def expected(turn: str) -> list[int]:
        return [
            e for e in (second, first)  # ties go to the newest
            if all(draw(agent_id, turn, lid) >= 0.5 for lid in citing[e] if lid in active)
        ]  # fmt: skip

    turns = [f"turn-{i}" for i in range(24)]
    seen = {t: ids(digest.examples(tenant, AGENT, "refund", k=2, turn_id=t)) for t in turns}
    assert all(seen[t] == expected(t) for t in turns), seen
    # at a share of one half, some turns withhold an example and some show both
    assert any(len(shown) < 2 for shown in seen.values()), seen
    assert any(len(shown) == 2 for shown in seen.values()), seen
    # the same turn asked again gives the same answer; no turn id withholds nothing
    assert ids(digest.examples(tenant, AGENT, "refund", k=2, turn_id=turns[0])) == seen[turns[0]]
    assert set(ids(digest.examples(tenant, AGENT, "refund", k=2))) == {first, second}
    assert flush_exposures()
    with session_scope() as session:
        rows = session.execute(
            select(HoldoutExposure.turn_id, HoldoutExposure.lesson_id, HoldoutExposure.shown).where(
                HoldoutExposure.agent_id == agent_id
            )
        ).all()
    assert rows and {turn for turn, _l, _s in rows} <= set(turns)
    for turn, lesson_id, was_shown in rows:
        assert was_shown == (draw(agent_id, turn, lesson_id) >= 0.5)
