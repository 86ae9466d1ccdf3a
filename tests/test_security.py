"""Security suite (issue 6), end to end: tenant isolation, the injection corpus quarantined,
secrets out of lessons, stored errors and worker logs.

It spans modules, so it stays here; the pure parts have their own unit tests beside their
modules (tests/test_redact.py, tests/test_logs.py, tests/reflect/test_screen.py, which shares
tests/injection_corpus.py with this suite). These tests run the real pipeline on the embedded
SQLite default, and on PostgreSQL + Redis with a real Celery worker process.
"""

from __future__ import annotations

import json
import random
import string
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

import digest
from digest.db import session_scope
from digest.errors import NotFound
from digest.model.contracts import embed_json
from digest.models import DigestRun, Event, LearningVersion, Lesson
from digest.reflect.views import fold
from tests.conftest import (
    WorkerProcess,
    lessons_for_event,
    llm_env,
    manual_lesson,
    spawn_worker,
    wait_for_event,
)
from tests.fake_llm import FakeLLM
from tests.injection_corpus import BENIGN, INJECTIONS

DONE = {"reflected", "skipped", "failed", "dead"}


def _word(n: int = 10) -> str:
    """A random alphabetic marker: pitfalls keywords are alphabetic, so it can be searched."""
    return "".join(random.choices(string.ascii_lowercase, k=n))


# --- tenant isolation ---------------------------------------------------------------------------


@dataclass
class Scope:
    """One (tenant, agent) with what it owns: a unique marker word, lesson and event ids."""

    tenant: str
    agent: str
    marker: str = field(default_factory=_word)
    lesson_ids: list[int] = field(default_factory=list)
    event_ids: list[int] = field(default_factory=list)


def _populate(scope: Scope, *, shared: bool) -> None:
    m = scope.marker
    scope.lesson_ids.append(
        manual_lesson(scope.tenant, scope.agent, f"refund-{m}: confirm the refund amount {m} first")
    )
    if shared:  # the same words in every tenant: only ids can tell them apart
        scope.lesson_ids.append(
            manual_lesson(scope.tenant, scope.agent, "refunds: never refund gift cards")
        )
    scope.event_ids.append(
        digest.record_run(
            scope.tenant, scope.agent, task=f"refund order {m}", outcome="failure",
            tool_calls=[{"tool": f"refund{m}", "args": {"order": m}, "ok": False,
                         "error": f"amount is required for {m}"}],
        )
    )  # fmt: skip
    scope.event_ids.append(
        digest.record_answer(
            scope.tenant, scope.agent, question=f"Do we ship {m} abroad?", answer=f"Yes, {m}."
        )
    )


def _reflect_and_compose(scope: Scope) -> None:
    from digest.pipeline import improve_now

    improve_now(scope.tenant, scope.agent)
    with session_scope() as session:
        new = session.scalars(
            select(Lesson.id)
            .join(Event, Event.agent_id == Lesson.agent_id)
            .where(Event.id == scope.event_ids[0], Lesson.id.not_in(scope.lesson_ids))
        ).all()
    scope.lesson_ids.extend(new)


@pytest.fixture()
def three_tenants(services_env: dict[str, str]) -> tuple[Scope, list[Scope]]:
    """Three tenants with random names, each with the shared agent name "bot" and an agent of
    its own; tenant B has two active versions, tenant C a pending version 2 (approval mode).
    Returns the scope the tests act as (A's bot) and every other scope."""
    from digest.tenants import configure_tenant

    tenants = [f"sec-{uuid.uuid4().hex[:10]}" for _ in range(3)]
    with session_scope() as session:
        for name in tenants:
            configure_tenant(session, name, frequency_gate=1)
    scopes = [Scope(t, agent) for t in tenants for agent in ("bot", f"agent-{_word(6)}")]
    for scope in scopes:
        _populate(scope, shared=scope.agent == "bot")
        _reflect_and_compose(scope)
    b_bot, c_bot = scopes[2], scopes[4]
    b_bot.lesson_ids.append(
        manual_lesson(b_bot.tenant, "bot", f"returns-{b_bot.marker}: {b_bot.marker} ok")
    )
    _reflect_and_compose(b_bot)
    with session_scope() as session:
        configure_tenant(session, c_bot.tenant, learning_apply_mode="approval")
    c_bot.lesson_ids.append(
        manual_lesson(c_bot.tenant, "bot", f"returns-{c_bot.marker}: {c_bot.marker} ok")
    )
    _reflect_and_compose(c_bot)
    with session_scope() as session:
        numbers = {
            (s.tenant, s.agent): sorted(
                (v.number, v.status)
                for v in session.scalars(
                    select(LearningVersion)
                    .join(Event, Event.agent_id == LearningVersion.agent_id)
                    .where(Event.id == s.event_ids[0])
                ).unique()
            )
            for s in (scopes[0], b_bot, c_bot)
        }
    # The setup the tests rely on: A's bot has version 1 only; B and C have a version 2.
    assert numbers[(scopes[0].tenant, "bot")] == [(1, "active")]
    assert numbers[(b_bot.tenant, "bot")] == [(1, "superseded"), (2, "active")]
    assert numbers[(c_bot.tenant, "bot")] == [(1, "active"), (2, "pending")]
    return scopes[0], scopes[1:]


def _assert_clean(text: str, me: Scope, others: list[Scope]) -> None:
    """``text`` (an API answer or a command's output) shows none of the other scopes' words."""
    for other in others:
        assert other.marker not in text, f"{other.tenant}/{other.agent} leaked into:\n{text}"


def _ids_in(data: Any) -> set[int]:
    """Every value of an "id", "lesson_id" or "event_id" key in a JSON document."""
    found: set[int] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            if key in ("id", "lesson_id", "event_id") and isinstance(value, int):
                found.add(value)
            found |= _ids_in(value)
    elif isinstance(data, list):
        for item in data:
            found |= _ids_in(item)
    return found


def test_read_apis_never_show_another_tenants_rows(
    three_tenants: tuple[Scope, list[Scope]], tmp_path: Path
) -> None:
    from digest.interop import export_lessons
    from digest.lessons.owner_views import lesson_detail, list_lessons_for, search_lessons
    from digest.lessons.stats import agent_stats
    from digest.versions.decisions import get_version

    me, others = three_tenants
    foreign_lessons = {i for o in others for i in o.lesson_ids}
    foreign_events = {i for o in others for i in o.event_ids}
    every_marker = " ".join(s.marker for s in [me, *others])

    block = digest.pitfalls(me.tenant, me.agent, f"refund amount gift cards {every_marker}", k=10)
    assert me.marker in block  # the agent's own lessons do surface
    _assert_clean(block, me, others)
    assert not {f"(#{i})" for i in foreign_lessons} & set(block.split())

    learning = digest.current_learning(me.tenant, me.agent)
    assert learning is not None and learning.number == 1
    assert me.marker in learning.body
    _assert_clean(learning.body + learning.summary + learning.change_summary, me, others)

    with session_scope() as session:
        listed = list_lessons_for(session, me.tenant, me.agent)
        assert {row.id for row in listed} == set(me.lesson_ids)
        found = search_lessons(session, me.tenant, me.agent, "refund")
        assert found and {row.id for row in found} <= set(me.lesson_ids)
        for other in others:
            assert search_lessons(session, me.tenant, me.agent, other.marker) == []
        for lesson_id in me.lesson_ids:
            detail = lesson_detail(session, me.tenant, me.agent, lesson_id).to_json()
            _assert_clean(json.dumps(detail), me, others)
            assert not {e["event_id"] for e in detail["evidence"]} & foreign_events
        stats = [row.to_json() for row in agent_stats(session, me.tenant, me.agent)]
        assert [(row["tenant"], row["agent"]) for row in stats] == [(me.tenant, me.agent)]
        from digest.tenants import find_agent

        own_events = session.scalars(
            select(Event.id).where(Event.agent_id == find_agent(session, me.tenant, me.agent).id)
        ).all()
        assert set(me.event_ids) <= set(own_events)
        assert sum(stats[0]["events"].values()) == len(own_events)
        tenant_stats = agent_stats(session, me.tenant)
        assert {row.tenant for row in tenant_stats} == {me.tenant}
        version = get_version(session, me.tenant, me.agent, 1)
        _assert_clean(version.body_markdown + version.change_summary, me, others)
        assert not set(version.folded_lesson_ids or []) & foreign_lessons
        assert not set(version.supporting_event_ids or []) & foreign_events
        with pytest.raises(NotFound):
            get_version(session, me.tenant, me.agent, 2)  # B's and C's number, not A's

    paths = export_lessons(me.tenant, me.agent, tmp_path / "export").written
    assert len(paths) >= 2
    exported = "\n".join(p.read_text(encoding="utf-8") for p in paths)
    assert me.marker in exported
    _assert_clean(exported, me, others)


def _cli(*args: str) -> Any:
    from digest.cli import app

    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_cli_reads_never_show_another_tenants_rows(
    three_tenants: tuple[Scope, list[Scope]], tmp_path: Path
) -> None:
    me, others = three_tenants
    who = ["--tenant", me.tenant, "--agent", me.agent]
    foreign_ids = {i for o in others for i in o.lesson_ids + o.event_ids}
    own_ids = set(me.lesson_ids) | set(me.event_ids)
    json_commands = [
        ["lesson", "list", *who, "--json"],
        ["lesson", "search", *who, "refund", "--json"],
        *(["lesson", "show", *who, str(i), "--json"] for i in me.lesson_ids),
        ["version", "list", *who, "--json"],
        ["version", "show", *who, "1", "--json"],
        ["stats", *who, "--json"],
        ["stats", "--tenant", me.tenant, "--json"],
        ["export", *who, "--out", str(tmp_path / "export"), "--json"],
    ]
    for command in json_commands:
        result = _cli(*command)
        assert result.exit_code == 0, (command, result.output)
        _assert_clean(result.output, me, others)
        ids = _ids_in(json.loads(result.stdout))
        assert not (ids - own_ids) & foreign_ids, command
    listed = json.loads(_cli("lesson", "list", *who, "--json").stdout)
    assert {row["id"] for row in listed} == set(me.lesson_ids)
    exported = "".join(p.read_text() for p in (tmp_path / "export").rglob("*.md"))
    assert me.marker in exported
    _assert_clean(exported, me, others)
    for command in (
        ["lesson", "list", *who],
        ["lesson", "search", *who, "refund"],
        ["version", "list", *who],
        ["version", "show", *who, "1"],
        ["stats", "--tenant", me.tenant],
    ):
        result = _cli(*command)
        assert result.exit_code == 0, (command, result.output)
        _assert_clean(result.output, me, others)
    for other in others:
        result = _cli("lesson", "search", *who, other.marker, "--json")
        assert result.exit_code == 0 and json.loads(result.stdout) == []
    diff = _cli("version", "diff", *who, "1", "2")  # 2 exists for B and C only
    assert diff.exit_code == 2
    assert "no version 2" in diff.output
    _assert_clean(diff.output, me, others)


def _lesson_state(lesson_id: int) -> tuple[str, Any, int]:
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        from digest.models import LessonHistory

        history = session.scalars(
            select(LessonHistory.id).where(LessonHistory.lesson_id == lesson_id)
        ).all()
        return lesson.status, lesson.updated_at, len(history)


def _version_state(tenant: str, agent: str) -> list[tuple[int, str, str | None]]:
    from digest.tenants import find_agent

    with session_scope() as session:
        agent_row = find_agent(session, tenant, agent)
        return [
            (v.number, v.status, v.approved_by)
            for v in session.scalars(
                select(LearningVersion)
                .where(LearningVersion.agent_id == agent_row.id)
                .order_by(LearningVersion.number)
            )
        ]


def test_another_tenants_ids_are_not_found_and_nothing_changes(
    three_tenants: tuple[Scope, list[Scope]],
) -> None:
    from digest.lessons.owner import set_lesson_status
    from digest.lessons.owner_views import lesson_detail
    from digest.versions.decisions import approve, reject, rollback

    me, others = three_tenants
    who = ["--tenant", me.tenant, "--agent", me.agent]
    foreign = [(o, lesson_id) for o in others for lesson_id in o.lesson_ids]
    before = {lesson_id: _lesson_state(lesson_id) for _, lesson_id in foreign}
    for _, lesson_id in foreign:
        with session_scope() as session, pytest.raises(NotFound):
            lesson_detail(session, me.tenant, me.agent, lesson_id)
        for status in ("disabled", "deleted", "active"):
            with session_scope() as session, pytest.raises(NotFound):
                set_lesson_status(session, me.tenant, me.agent, lesson_id, status)
        for verb in ("show", "disable", "enable", "delete"):
            result = _cli("lesson", verb, *who, str(lesson_id))
            assert result.exit_code == 2, (verb, result.output)
            # The same words as for an unused id: an id says nothing about other tenants.
            assert f"lesson {lesson_id} not found for agent" in result.output
            _assert_clean(result.output, me, others)
    assert {lesson_id: _lesson_state(lesson_id) for _, lesson_id in foreign} == before

    c_bot = others[3]
    c_versions = _version_state(c_bot.tenant, "bot")
    mine = _version_state(me.tenant, me.agent)
    for action in (approve, reject, rollback):
        with pytest.raises(NotFound):
            action(me.tenant, me.agent, 2, by="mallory")
    for verb in ("approve", "reject", "rollback"):
        result = _cli("version", verb, *who, "2", "--by", "mallory")
        assert result.exit_code == 2 and "no version 2" in result.output
    assert _version_state(c_bot.tenant, "bot") == c_versions  # C's v2 is still pending
    assert _version_state(me.tenant, me.agent) == mine


# --- the injection corpus, end to end -----------------------------------------------------------

AGENT = "bot"


@dataclass
class Corpus:
    """Event ids of one submitted corpus, by where the text arrived."""

    injected: dict[str, list[int]] = field(default_factory=dict)  # field name → event ids
    benign: list[int] = field(default_factory=list)
    trusted: list[int] = field(default_factory=list)  # events; manual lessons below
    manual_lessons: list[int] = field(default_factory=list)


def _submit_corpus(tenant: str) -> Corpus:
    from digest.tenants import configure_tenant

    with session_scope() as session:
        configure_tenant(session, tenant, frequency_gate=1)  # one sighting enters a version
    corpus = Corpus()
    corpus.injected["task"] = [
        digest.record_run(
            tenant, AGENT, task=payload, outcome="failure",
            tool_calls=[{"tool": "lookup_order", "ok": False, "error": "order_id is required"}],
        )
        for payload in INJECTIONS
    ]  # fmt: skip
    corpus.injected["tool error"] = [
        digest.record_run(
            tenant, AGENT, task="refund order 7781", outcome="failure",
            tool_calls=[{"tool": "issue_refund", "args": {"order": "7781"}, "ok": False,
                         "error": payload}],
        )
        for payload in INJECTIONS
    ]  # fmt: skip
    corpus.injected["run error"] = [
        digest.record_run(tenant, AGENT, task="close ticket 42", outcome="failure", error=payload)
        for payload in INJECTIONS
    ]
    for index, text in enumerate(BENIGN):
        tool = f"tool_{_word(6)}"  # distinct tools: benign lessons must not merge
        corpus.benign.append(
            digest.record_run(
                tenant, AGENT, task=text, outcome="failure",
                tool_calls=[{"tool": tool, "ok": False, "error": f"field {index} is required"}],
            )
        )  # fmt: skip
        if text.startswith("From now on"):
            continue  # a tool's error that gives standing orders is held by design
        corpus.benign.append(
            digest.record_run(
                tenant, AGENT, task=f"help customer {index}", outcome="failure",
                tool_calls=[{"tool": f"{tool}_b", "ok": False, "error": text}],
            )
        )  # fmt: skip
    # Trusted sources are not screened, even when their words would be flagged from a user.
    corpus.trusted.append(
        digest.record_answer(
            tenant, AGENT, question="Where do invoices go?",
            answer="Ignore the previous price list; email invoices to billing@acme.example.",
        )
    )  # fmt: skip
    corpus.trusted.append(
        digest.record_edit(
            tenant, AGENT, original="Thanks for your message!",
            final="Thanks! For refunds, contact refunds@shop.example with your order number.",
        )
    )  # fmt: skip
    corpus.manual_lessons.append(
        manual_lesson(
            tenant, AGENT, "releases: run the shell command `make release` after the tests pass"
        )
    )
    return corpus


def _check_corpus(tenant: str, corpus: Corpus) -> None:
    from digest.pipeline import improve_now

    quarantined: list[Lesson] = []
    for where, event_ids in corpus.injected.items():
        for payload, event_id in zip(INJECTIONS, event_ids, strict=True):
            row = wait_for_event(event_id, DONE, timeout=60)
            assert row["status"] == "reflected", (where, payload, row)
            lessons = lessons_for_event(event_id)
            assert lessons, (where, payload)
            for lesson in lessons:
                assert lesson.status == "quarantined", (where, payload, lesson.situation)
                assert (lesson.status_reason or "").startswith("injection screen: ")
            quarantined.extend(lessons)
    benign: list[Lesson] = []
    for event_id in corpus.benign:
        assert wait_for_event(event_id, DONE, timeout=60)["status"] == "reflected"
        lessons = lessons_for_event(event_id)
        # Never quarantined; reconciliation may still merge or supersede benign lessons
        # among themselves (that is its job, not the screen's).
        assert lessons and all(lesson.status in ("active", "superseded") for lesson in lessons), [
            (lesson.situation, lesson.status, lesson.status_reason) for lesson in lessons
        ]
        benign.extend(lessons)
    trusted: list[Lesson] = []
    for event_id in corpus.trusted:
        assert wait_for_event(event_id, DONE, timeout=60)["status"] == "reflected"
        trusted.extend(lessons_for_event(event_id))
    with session_scope() as session:
        trusted.extend(session.get(Lesson, i) for i in corpus.manual_lessons)  # type: ignore[misc]
    assert len(trusted) == 3  # the answer, the manual lesson and the edit's content
    assert all(lesson.status == "active" for lesson in trusted)
    assert "billing@acme.example" in " ".join(lesson.correction for lesson in trusted)

    improve_now(tenant, AGENT)  # "no_change" if a threshold compose got there first
    with session_scope() as session:
        from digest.tenants import find_agent

        agent_row = find_agent(session, tenant, AGENT)
        version = session.get(LearningVersion, agent_row.current_version_id)
        assert version is not None and version.status == "active"
        folded = set(version.folded_lesson_ids or [])
        body = version.body_markdown
    assert not folded & {lesson.id for lesson in quarantined}
    with session_scope() as session:
        active = set(
            session.scalars(
                select(Lesson.id).where(
                    Lesson.id.in_([lesson.id for lesson in benign]), Lesson.status == "active"
                )
            )
        )
    assert len(active) >= len(BENIGN) // 3  # reconciliation merged some; many stay in force
    assert active | {lesson.id for lesson in trusted} <= folded  # and those do get in
    assert "billing@acme.example" in body
    for payload in INJECTIONS:
        assert fold(payload)[:24] not in fold(body), payload
    learning = digest.current_learning(tenant, AGENT)
    assert learning is not None and learning.body == body

    for lesson in quarantined[:: max(1, len(quarantined) // 40)]:
        # The lesson's own words as the prompt: it would rank first if it were eligible.
        block = digest.pitfalls(tenant, AGENT, lesson.situation + " " + lesson.correction, k=10)
        assert f"(#{lesson.id})" not in block
    sample = next(lesson for lesson in benign if lesson.id in active)
    block = digest.pitfalls(tenant, AGENT, sample.situation + " " + sample.correction, k=10)
    assert f"(#{sample.id})" in block  # the same query does surface an eligible lesson


def test_injection_corpus_is_quarantined_on_the_embedded_default(sqlite_env: str) -> None:
    from digest.pipeline import drain

    tenant = f"inj-{uuid.uuid4().hex[:8]}"
    corpus = _submit_corpus(tenant)
    results = drain()
    assert sum(r.quarantined for r in results) >= 3 * len(INJECTIONS)
    _check_corpus(tenant, corpus)


def test_a_secret_echoed_by_a_tool_never_reaches_a_lesson(sqlite_env: str) -> None:
    from digest.pipeline import drain

    tenant = f"sec-{uuid.uuid4().hex[:8]}"
    key = "sk-proj-" + "Q7w" * 10
    event_id = digest.record_run(
        tenant, AGENT, task="sync the CRM contacts", outcome="failure",
        tool_calls=[{"tool": "crm_sync", "ok": False,
                     "error": f"401 Unauthorized: invalid api key {key} for crm.example"}],
    )  # fmt: skip
    [result] = drain()
    assert result.status == "reflected", result
    with session_scope() as session:
        lessons = list(session.scalars(select(Lesson)))
        stored = session.get(Event, event_id)
        assert stored is not None
        # masked at capture (issue 25): the event keeps the error, never the key
        assert "invalid api key sk-*** for crm.example" in json.dumps(stored.payload)
        assert "Q7wQ7w" not in json.dumps(stored.payload)
    assert lessons, "the tool error still teaches a lesson"
    texts = " ".join(f"{x.title} {x.situation} {x.mistake} {x.correction}" for x in lessons)
    assert "crm_sync" in texts
    assert key not in texts and "Q7wQ7w" not in texts


def test_injection_corpus_is_quarantined_by_a_worker_on_postgres(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    corpus = _submit_corpus(tenant)
    _check_corpus(tenant, corpus)


# --- secrets in stored errors and worker logs, end to end ----------------------------------------

API_KEY = "sk-proj-" + "Secr3tKeyThatMustNeverLeak0"
DB_PASSWORD = "pg-" + "Passw0rd-never-logged"
BEARER = "bearer-" + "T0kenThatMustNeverLeak"
LEAKY_ERROR = (
    f"Incorrect API key provided: {API_KEY}. Retried via "
    f"postgresql://digest:{DB_PASSWORD}@db.internal:5432/digest with "
    f"Authorization: Bearer {BEARER}"
)


@pytest.fixture(scope="module")
def llm_queue() -> str:
    return f"digest-sec-llm-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def secret_worker(
    pg_url: str, redis_url: str, llm_queue: str, fake_llm: FakeLLM, tmp_path_factory: Any
) -> Iterator[WorkerProcess]:
    """A worker on the real-provider path (litellm → the fake server), with an API key set,
    on a queue of its own so the offline tests' worker never sees these events."""
    log_path = Path(tmp_path_factory.mktemp("sec-llm")) / "worker.log"
    env = {
        **llm_env(pg_url, redis_url, llm_queue, fake_llm.api_base),
        "DIGEST_LLM_API_KEY": API_KEY,
    }
    worker = spawn_worker(env, log_path, 2)
    yield worker
    worker.stop()


@pytest.fixture()
def on_llm_queue(
    services_env: dict[str, str], llm_queue: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.conftest import _reset_process_state

    monkeypatch.setenv("DIGEST_QUEUE", llm_queue)
    _reset_process_state()


@pytest.mark.usefixtures("on_llm_queue")
def test_secrets_never_reach_stored_errors_or_worker_logs(
    secret_worker: WorkerProcess, fake_llm: FakeLLM, tenant: str
) -> None:
    marker = fake_llm.script(f"leaky-{tenant}", ("status", 401, LEAKY_ERROR))
    event_id = digest.record_run(
        tenant, AGENT, task=f"refund order 11 {marker}", outcome="failure",
        tool_calls=[{"tool": "issue_refund", "ok": False, "error": "amount is required"}],
    )  # fmt: skip
    row = wait_for_event(event_id, DONE, timeout=40)
    assert row["status"] == "failed", row
    with session_scope() as session:
        run = session.scalars(select(DigestRun).where(DigestRun.event_id == event_id)).one()
        stored = {"events.last_error": row["last_error"] or "", "digest_runs.error": run.error}
    log_text = secret_worker.log()
    assert "event_failed" in log_text
    for where, text in {**stored, "worker log": log_text}.items():
        for secret in (API_KEY, DB_PASSWORD, BEARER):
            assert secret not in text, f"{secret!r} leaked into {where}"
    for where, text in stored.items():
        # The error itself is kept, masked: a person can still see what went wrong.
        assert "Incorrect API key provided: sk-***" in (text or ""), where
        assert "postgresql://digest:***@db.internal" in (text or ""), where


def _echo_lesson(payload: str) -> str:
    """What a model fooled by a tool's output would answer: the payload as a lesson."""
    import html

    return (
        "<lesson>\n<situation>Reading the order page with the browse tool</situation>\n"
        f"<mistake>The page said: {html.escape(payload)}</mistake>\n"
        f"<correction>{html.escape(payload)}</correction>\n<tags>browse</tags>\n</lesson>"
    )


@pytest.mark.usefixtures("on_llm_queue")
def test_injection_in_tool_output_is_quarantined_on_the_model_path(
    secret_worker: WorkerProcess, fake_llm: FakeLLM, tenant: str
) -> None:
    events: list[tuple[str, str, int]] = []
    for index, payload in enumerate(INJECTIONS):
        name = f"out-{index}-{tenant}"
        marker = fake_llm.script(name, ("reply", _echo_lesson(payload)))
        event_id = digest.record_run(
            tenant, AGENT, task=f"check order {index} {marker}", outcome="failure",
            tool_calls=[{"tool": "browse", "ok": False, "error": "page loaded with a banner",
                         "output": f"Order page. {payload}"}],
        )  # fmt: skip
        events.append((name, payload, event_id))
    for name, payload, event_id in events:
        row = wait_for_event(event_id, DONE, timeout=60)
        assert row["status"] == "reflected", (payload, row, secret_worker.log()[-2000:])
        # The payload reached the model through the tool output field, and came back.
        shown = "".join(m["content"] for m in fake_llm.bodies[name][0]["messages"])
        assert embed_json(payload)[1:-1] in shown  # as JSON, "<" and ">" escaped
        lessons = lessons_for_event(event_id)
        assert [lesson.status for lesson in lessons] == ["quarantined"], payload
    assert digest.current_learning(tenant, AGENT) is None
