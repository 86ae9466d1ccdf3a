"""The weekly sweep's part in measured effect: retire the active lessons measured as harmful
(``disabled`` through ``transition``, the evidence in the history row), agent by agent, unless
a person wrote or reviewed them (trust ``trusted`` or ``reviewed``): those are left for their
owner to review.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import exists, select

from digest.config import Settings, get_settings
from digest.db import read_scope, session_scope
from digest.lessons.effect.measure import LessonEffect, agent_effects, percent
from digest.lessons.transition import lock_agent_lessons, transition
from digest.logs import get_logger
from digest.models import PROTECTED_TRUST, Agent, Lesson

log = get_logger("digest.effect")

#: how a retirement's history reason begins
RETIRED_REASON = "measured harmful, retired by the sweep"


def retire_harmful_lessons(
    settings: Settings | None = None, *, now: datetime | None = None
) -> list[LessonEffect]:
    """Disable every active, untrusted lesson measured as harmful (``action == "retire"``),
    agent by agent, through ``transition``: a history row whose reason is the evidence, the
    agent's epoch moved and ``updated_at`` stamped (so the sweep then recomposes the agent).
    Agents with learning turned off are left alone; ``DIGEST_EFFECT_RETIRE=false`` turns this
    off. Returns the effects of the lessons retired."""
    settings = settings or get_settings()
    if not settings.effect_retire:
        return []
    candidates = exists(
        select(Lesson.id).where(
            Lesson.agent_id == Agent.id,
            Lesson.status == "active",
            Lesson.trust.not_in(PROTECTED_TRUST),
        )
    )
    with read_scope(settings.database_url) as session:
        agent_ids = list(
            session.scalars(
                select(Agent.id)
                .where(Agent.enable_learning.is_(True), candidates)
                .order_by(Agent.id)
            )
        )
    retired: list[LessonEffect] = []
    for agent_id in agent_ids:
        try:
            retired += retire_for_agent(agent_id, settings, now=now)
        except Exception as exc:  # one agent's fault must not stop the sweep for the others
            log.error("effect_retire_failed", agent_id=agent_id, error=str(exc))
    return retired


def retire_for_agent(
    agent_id: int, settings: Settings | None = None, *, now: datetime | None = None
) -> list[LessonEffect]:
    """One agent's part of ``retire_harmful_lessons``. Measured without a lock, then each
    lesson to retire is read again under the agent's lesson lock: one a person changed
    meanwhile (disabled, deleted, released) is left as it is."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        _, effects = agent_effects(session, agent_id, settings, now=now)
    doomed = [effect for effect in effects if effect.action == "retire"]
    if not doomed:
        return []
    retired = []
    with session_scope(settings.database_url) as session:
        lock_agent_lessons(session, agent_id)
        for effect in doomed:
            lesson = session.get(Lesson, effect.lesson_id, populate_existing=True)
            if lesson is None or lesson.status != "active" or lesson.trust in PROTECTED_TRUST:
                continue
            transition(
                session, lesson, op="UPDATE", reason=f"{RETIRED_REASON}: {effect.evidence()}",
                status="disabled",
                status_reason=_status_reason(effect),
            )  # fmt: skip
            retired.append(effect)
    if retired:
        log.info(
            "harmful_lessons_retired",
            agent_id=agent_id,
            lesson_ids=[effect.lesson_id for effect in retired],
        )
    return retired


def _status_reason(effect: LessonEffect) -> str:
    if effect.randomized is not None and effect.decided_by == "randomized":
        r = effect.randomized
        return (
            f"retired by the sweep: harmful by the randomized holdout (success "
            f"{percent(r.shown.rate)} in {r.shown.runs} turns shown, "
            f"{percent(r.withheld.rate)} in {r.withheld.runs} turns withheld)"
        )
    return (
        f"retired by the sweep: measured harmful (success "
        f"{percent(effect.applied.rate)} in {effect.applied.runs} runs applied, "
        f"{percent(effect.baseline.rate)} in {effect.baseline.runs} runs without it)"
    )
