"""digest.versions.replay: every compose replays the agent's recent failed or edited events
against the active version and the proposal, and holds a proposal that loses coverage or
shrinks sharply, even in auto mode (issue 16). PostgreSQL, the real pipeline, offline/rules.

The stream is scripted: tool failures (untrusted run lessons, let into the document at once by
a tenant gate of 1) and an operator edit (a trusted reply rule), with owner lessons beside them.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select, update

import digest
from digest.config import get_settings
from digest.db import session_scope
from digest.errors import DigestError
from digest.identity.embedding import LOCAL_MODEL, clear_cache
from digest.lessons.owner import set_lesson_status
from digest.lessons.vectors import vector_key
from digest.models import LearningVersion, LessonEvidence, ReplayProbe
from digest.pipeline import improve_now
from digest.tenants import configure_tenant
from digest.versions.compose import compose_version
from digest.versions.decisions import approve, rollback
from digest.versions.preview import preview_compose
from digest.versions.queries import read_version
from digest.versions.replay.facts import forget_facts
from digest.versions.replay.report import FOLDED, MISSED, SURFACED, ReplayReport
from tests.conftest import lessons_for_event, manual_lesson
from tests.versions.conftest import AGENT, agent_id, current_number, lesson

FAILURES = {
    "courier": ("Book a courier for order 7", "book_courier",
                "ValidationError: field 'carrier_code' is required"),
    "refund": ("Refund the customer for order 12", "refund", "amount is required"),
    "lookup": ("Look up the status of order 99", "lookup_order", "order 99 not found"),
}  # fmt: skip


def fail(tenant: str, what: str, task: str | None = None, number: int = 7) -> int:
    default_task, tool, error = FAILURES[what]
    return digest.record_run(
        tenant, AGENT, task=task or default_task, outcome="failure",
        tool_calls=[{"tool": tool, "args": {"order": number}, "ok": False,
                     "error": error.replace("99", str(number))}],
    )  # fmt: skip


def edit(tenant: str) -> int:
    return digest.record_edit(
        tenant, AGENT, original="Your parcel is on its way, definitely.",
        final="Your parcel is on its way.", context="Customer asks when the parcel arrives",
    )  # fmt: skip


def open_gate(tenant: str, mode: str = "auto") -> None:
    """One run is enough for a run's lesson to enter the document (the gate is not tested)."""
    with session_scope() as session:
        configure_tenant(
            session, tenant, learning_apply_mode=mode, frequency_gate=1, independent_spread_s=0
        )


def lesson_of(event_id: int) -> int:
    [row] = lessons_for_event(event_id)
    return row.id


def stored_report(tenant: str, number: int) -> ReplayReport:
    report = read_version(tenant, AGENT, number).replay
    assert report is not None
    return report


def by_event(report: ReplayReport) -> dict[int, tuple[str, str, int | None, int | None]]:
    return {
        e.event_id: (e.current, e.proposed, e.current_lesson, e.proposed_lesson)
        for e in report.per_event
    }


def test_a_version_built_from_covering_lessons_reports_more_coverage_than_its_predecessor(
    services_env: dict[str, str], tenant: str
) -> None:
    open_gate(tenant)
    greeting = lesson(tenant, 1)
    assert improve_now(tenant, AGENT).number == 1  # an owner rule that covers no failure
    runs = {what: fail(tenant, what) for what in FAILURES}
    edited = edit(tenant)

    second = improve_now(tenant, AGENT)
    assert (second.number, second.version_status, second.hold_reason) == (2, "active", None)
    report = stored_report(tenant, 2)
    assert (report.events, report.k, report.current_number) == (4, 3, 1)
    assert (report.current_lessons, report.proposed_lessons) == (1, 5)
    assert (report.current_covered, report.proposed_covered) == (0, 4)
    assert (report.gained, report.lost, report.since_current) == (4, 0, 4)
    assert report.current_coverage == 0.0 and report.proposed_coverage == 1.0
    expected = {event: (MISSED, SURFACED, None, lesson_of(event)) for event in runs.values()}
    expected[edited] = (MISSED, SURFACED, None, lesson_of(edited))
    assert by_event(report) == expected
    assert greeting not in {row[3] for row in expected.values()}
    probes = {e.event_id: e.probe for e in report.per_event}
    assert probes[runs["courier"]] == "Book a courier for order 7"
    assert probes[edited] == "Customer asks when the parcel arrives"  # an edit's context
    assert report.ms > 0

    # the listing keeps the totals, `show` has every event
    listed = read_version(tenant, AGENT, 2).to_json()
    assert listed["replay"]["proposed_covered"] == 4 and listed["replay"]["per_event"] is None
    assert len(read_version(tenant, AGENT, 2).to_json(body=True)["replay"]["per_event"]) == 4


def test_a_version_that_drops_a_covering_lesson_is_held_with_the_reason(
    services_env: dict[str, str], tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_gate(tenant)
    for n in range(3):
        lesson(tenant, n)  # owner rules: the proposal below does not shrink by half
    runs = {what: fail(tenant, what) for what in FAILURES}
    assert improve_now(tenant, AGENT).number == 1
    covering = lesson_of(runs["refund"])
    with session_scope() as session:
        set_lesson_status(session, tenant, AGENT, covering, "disabled", by="owner")

    held = compose_version(agent_id(tenant), "manual")
    assert (held.number, held.version_status) == (2, "pending")
    assert current_number(tenant) == 1  # auto mode, and still the old version is in force
    assert held.hold_reason is not None and held.hold_reason.startswith("replay: ")
    assert "covers 2 of the 3 recent failed or edited events, version 1 covered 3" in (
        held.hold_reason
    )
    assert "DIGEST_REPLAY_MARGIN" in held.hold_reason
    report = stored_report(tenant, 2)
    assert (report.current_covered, report.proposed_covered, report.lost) == (3, 2, 1)
    assert by_event(report)[runs["refund"]] == (SURFACED, MISSED, covering, None)
    assert read_version(tenant, AGENT, 2).hold_reason == held.hold_reason

    # a person decides: approving it puts it in force, the reason stays as the record
    approve(tenant, AGENT, 2, by="owner")
    assert current_number(tenant) == 2
    assert read_version(tenant, AGENT, 2).hold_reason == held.hold_reason


def test_a_lesson_the_sweep_retired_as_harmful_is_not_a_loss(
    services_env: dict[str, str], tenant: str
) -> None:
    """The outcomes decided it should go: the proposal without it is not held for the
    coverage that lesson gave, while the same drop by a person's disable is (above)."""
    from digest.lessons.effect.retire import RETIRED_REASON
    from digest.lessons.transition import transition
    from digest.models import Lesson

    open_gate(tenant)
    for n in range(3):
        lesson(tenant, n)
    runs = {what: fail(tenant, what) for what in FAILURES}
    assert improve_now(tenant, AGENT).number == 1
    harmful = lesson_of(runs["refund"])
    with session_scope() as session:
        row = session.get(Lesson, harmful)
        assert row is not None
        transition(
            session, row, op="UPDATE", reason=f"{RETIRED_REASON}: applied in 14 runs …",
            status="disabled", status_reason="retired by the sweep: measured harmful",
        )  # fmt: skip

    result = compose_version(agent_id(tenant), "manual")
    assert (result.number, result.version_status, result.hold_reason) == (2, "active", None)
    report = stored_report(tenant, 2)
    assert report.withdrawn == 1 and report.lost == 0
    assert (report.current_covered, report.proposed_covered) == (2, 2)
    assert by_event(report)[runs["refund"]][:2] == (MISSED, MISSED)


def test_a_loss_within_the_margin_is_activated(
    services_env: dict[str, str], tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIGEST_REPLAY_MARGIN", "0.5")
    get_settings.cache_clear()
    open_gate(tenant)
    for n in range(3):
        lesson(tenant, n)
    runs = {what: fail(tenant, what) for what in FAILURES}
    improve_now(tenant, AGENT)
    with session_scope() as session:
        set_lesson_status(session, tenant, AGENT, lesson_of(runs["refund"]), "disabled")
    result = compose_version(agent_id(tenant), "manual")
    assert (result.version_status, result.hold_reason) == ("active", None)
    assert stored_report(tenant, 2).lost == 1  # 1 of 3 lost: a third, within a half


def test_a_sharp_shrink_is_held_even_without_lost_coverage(
    services_env: dict[str, str], tenant: str
) -> None:
    rules = [lesson(tenant, n) for n in range(4)]
    assert compose_version(agent_id(tenant), "manual").version_status == "active"
    with session_scope() as session:
        for rule in rules[:3]:
            set_lesson_status(session, tenant, AGENT, rule, "disabled")
    held = compose_version(agent_id(tenant), "manual")
    assert held.version_status == "pending" and current_number(tenant) == 1
    assert held.hold_reason == (
        "shrink: it folds 1 lesson(s), version 1 folded 4: fewer than 50% of them "
        "(DIGEST_REPLAY_SHRINK_RATIO)"
    )


def test_a_rollback_is_replayed_and_never_held(services_env: dict[str, str], tenant: str) -> None:
    open_gate(tenant)
    lesson(tenant, 1)
    assert improve_now(tenant, AGENT).number == 1  # covers nothing
    runs = [fail(tenant, what) for what in FAILURES]
    assert improve_now(tenant, AGENT).version_status == "active"  # v2 covers the three

    back = rollback(tenant, AGENT, 1, by="owner")  # loses all three: still in force at once
    assert back.status == "active" and back.hold_reason is None and current_number(tenant) == 3
    report = stored_report(tenant, 3)
    assert (report.current_number, report.current_covered, report.proposed_covered) == (2, 3, 0)
    assert {e.event_id for e in report.per_event} == set(runs)


def test_a_lesson_matching_every_word_covers_nothing_it_was_not_learned_from(
    services_env: dict[str, str], tenant: str
) -> None:
    """Relevance is provenance (evidence) or structure (fingerprint), never shared words: a
    rule that holds every word of every task is surfaced for each and covers none."""
    with session_scope() as session:
        configure_tenant(session, tenant, frequency_gate=50)  # the runs' lessons stay out
    words = "book courier order refund customer look status"
    stuffed = manual_lesson(tenant, AGENT, f"everything: {words} always")
    runs = [fail(tenant, what) for what in FAILURES]
    assert improve_now(tenant, AGENT).number == 1
    report = stored_report(tenant, 1)
    assert report.proposed_lessons == 1
    assert (report.events, report.proposed_covered, report.proposed_folded) == (3, 0, 0)
    assert all(by_event(report)[run][1] == MISSED for run in runs)
    # it is what the agent's own retrieval puts first for every one of those tasks
    for task, _, _ in FAILURES.values():
        assert f"(#{stuffed})" in digest.pitfalls(tenant, AGENT, task)


def test_a_repeat_in_other_words_is_covered_by_its_fingerprint(
    services_env: dict[str, str], tenant: str
) -> None:
    """An event the lesson does not cite (captured, not yet reflected) is covered when the
    lesson has its fingerprint: the same tool and error template, other ids and wording."""
    open_gate(tenant)
    first = fail(tenant, "courier")
    assert improve_now(tenant, AGENT).number == 1
    courier = lesson_of(first)
    repeat = fail(
        tenant, "courier", task="Please book a courier pickup for order 4521", number=4521
    )
    with session_scope() as session:
        cited = session.scalars(
            select(LessonEvidence.lesson_id).where(LessonEvidence.event_id == repeat)
        ).all()
    assert cited == []  # nothing learned from it yet

    preview = preview_compose(tenant, AGENT)
    assert preview.outcome == "no_change" and preview.reasons == []
    assert by_event(preview.report)[repeat] == (SURFACED, SURFACED, courier, courier)
    assert preview.report.since_current == 1


def test_a_relevant_lesson_the_retrieval_does_not_rank_is_only_folded(
    services_env: dict[str, str], tenant: str
) -> None:
    open_gate(tenant)
    run = fail(tenant, "refund", task="zzz qqq")  # a task sharing no word with any lesson
    assert improve_now(tenant, AGENT).number == 1
    report = stored_report(tenant, 1)
    assert by_event(report)[run] == (MISSED, FOLDED, None, lesson_of(run))
    assert (report.proposed_covered, report.proposed_folded) == (0, 1)


def test_skipped_events_successes_and_answers_are_not_replayed(
    services_env: dict[str, str], tenant: str
) -> None:
    open_gate(tenant)
    counted = fail(tenant, "lookup")
    digest.record_run(tenant, AGENT, task="Refund order 3", outcome="success")
    digest.record_run(
        tenant, AGENT, task="Where is order 7?", outcome="failure", error="upstream timeout"
    )  # a transient fault: skipped by the judge
    digest.record_answer(tenant, AGENT, question="Do we ship to Norway?", answer="Yes, from Oslo.")
    assert improve_now(tenant, AGENT).number == 1
    assert [e.event_id for e in stored_report(tenant, 1).per_event] == [counted]


def test_the_last_n_events_from_before_and_after_the_active_version(
    services_env: dict[str, str], tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIGEST_REPLAY_EVENTS", "3")
    get_settings.cache_clear()
    open_gate(tenant)
    old = [fail(tenant, "courier", number=n) for n in (1, 2)]
    improve_now(tenant, AGENT)
    new = [fail(tenant, "refund", number=n) for n in (3, 4)]
    improve_now(tenant, AGENT)
    report = stored_report(tenant, 2)
    assert [e.event_id for e in report.per_event] == [new[1], new[0], old[1]]  # newest first
    assert [e.since_current for e in report.per_event] == [True, True, False]
    assert report.since_current == 2

    preview = preview_compose(tenant, AGENT, events=1)
    assert [e.event_id for e in preview.report.per_event] == [new[1]]


def test_replay_off_writes_no_replay_and_still_checks_the_shrink(
    services_env: dict[str, str], tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIGEST_REPLAY_EVENTS", "0")
    get_settings.cache_clear()
    open_gate(tenant)
    rules = [lesson(tenant, n) for n in range(2)]
    fail(tenant, "courier")
    assert improve_now(tenant, AGENT).version_status == "active"
    first = read_version(tenant, AGENT, 1)
    assert first.replay is None and len(first.folded_lesson_ids) == 3
    with session_scope() as session:
        for rule in rules:
            set_lesson_status(session, tenant, AGENT, rule, "disabled")
    held = compose_version(agent_id(tenant), "manual")
    assert held.version_status == "pending" and held.hold_reason is not None
    assert held.hold_reason.startswith("shrink: it folds 1 lesson(s)")
    with pytest.raises(DigestError, match="replay is off"):
        preview_compose(tenant, AGENT)
    assert len(preview_compose(tenant, AGENT, events=5).report.per_event) == 1


def test_the_stored_report_reads_back_equal(services_env: dict[str, str], tenant: str) -> None:
    open_gate(tenant)
    fail(tenant, "courier")
    improve_now(tenant, AGENT)
    with session_scope() as session:
        [stored] = session.scalars(
            select(LearningVersion.replay).where(LearningVersion.agent_id == agent_id(tenant))
        ).all()
    assert stored is not None and stored["events"] == 1
    assert ReplayReport.from_json(stored).to_json() == stored
    assert stored_report(tenant, 1).to_json() == stored


@pytest.mark.parametrize("database", ["postgresql", "sqlite"])
def test_probe_vectors_are_embedded_once_stored_and_read_back(
    database: str, request: pytest.FixtureRequest, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With an embedding model each probe is embedded once and kept in ``replay_probes``: a
    process that never saw the events reads the vectors back; one stored for other text (or
    another model) is embedded again and replaced."""
    request.getfixturevalue("services_env" if database == "postgresql" else "sqlite_env")
    monkeypatch.setenv("DIGEST_EMBEDDING_MODEL", "local")
    get_settings.cache_clear()
    open_gate(tenant)
    runs = {what: fail(tenant, what) for what in ("courier", "refund")}
    assert improve_now(tenant, AGENT).number == 1
    first = stored_report(tenant, 1)
    assert first.proposed_covered == 2

    def probes() -> dict[int, str]:
        with session_scope() as session:
            return dict(
                session.execute(
                    select(ReplayProbe.event_id, ReplayProbe.embedding_key).where(
                        ReplayProbe.event_id.in_(list(runs.values()))
                    )
                ).all()
            )

    expected = {event: vector_key(LOCAL_MODEL, FAILURES[what][0]) for what, event in runs.items()}
    assert probes() == expected
    with session_scope() as session:
        session.execute(
            update(ReplayProbe)
            .where(ReplayProbe.event_id == runs["courier"])
            .values(embedding_key="stale")
        )
    forget_facts()  # a process that has not replayed these events
    clear_cache()
    lesson(tenant, 1)
    assert improve_now(tenant, AGENT).number == 2
    second = stored_report(tenant, 2)
    assert (second.current_covered, second.proposed_covered) == (2, 2)
    assert probes() == expected  # the stale one embedded again, and replaced
