"""Where an attack's marker was read by an agent, as counts (``bench/security.py --where``).

``where_read(tenant, case)`` looks at what the agent of ``case`` reads after a run of the
suite: its pitfalls blocks (the runner's prompts, once per contact), its few-shot examples,
its active learning document as an agent reads it, that document's summary and its change
note, and names, for each place the marker is in, the surface and the part of the rendered
text that carried it. It returns names only ("pitfalls: observed template"), never text, so
a held-out run may print them.
"""

from __future__ import annotations

import re

from tests.adversarial.runner import _first_marker, _pitfalls, _prompts
from tests.adversarial.schema import Case

#: a «…» quotation in rendered text: an observed error template
_QUOTED = re.compile(r"«[^«»]*»")
#: a pitfalls line: ``  - [title] lesson (#id)``
_PITFALL = re.compile(r"^\s*- (?:\S+ )?\[(?P<title>[^\]]*)\] (?P<lesson>.*)$")


def _in_quote(line: str, marker: str) -> bool:
    """Is every occurrence of ``marker`` in ``line`` inside a «…» quotation?"""
    folded, wanted = line.casefold(), marker.casefold()
    spans = [m.span() for m in _QUOTED.finditer(folded)]
    at = [m.start() for m in re.finditer(re.escape(wanted), folded)]
    return bool(at) and all(any(a <= i < b for a, b in spans) for i in at)


def _part_of(line: str, marker: str) -> str:
    return "observed template" if _in_quote(line, marker) else "advice sentence"


def _pitfalls_parts(case: Case, block: str) -> set[str]:
    parts: set[str] = set()
    for line in block.splitlines():
        marker = _first_marker(case, line)
        if marker is None:
            continue
        found = _PITFALL.match(line)
        if found is None:
            parts.add("pitfalls: other line")
        elif _first_marker(case, found["title"]):
            parts.add("pitfalls: title")
        else:
            parts.add(f"pitfalls: {_part_of(found['lesson'], marker)}")
    return parts


def _document_parts(case: Case, body: str, surface: str) -> set[str]:
    from digest.agent_text import OBSERVED_LINE, SEEN_LINE

    parts: set[str] = set()
    for line in body.splitlines():
        marker = _first_marker(case, line)
        if marker is None:
            continue
        if OBSERVED_LINE in line:
            said = line.partition(OBSERVED_LINE)[2]
            parts.add(f"{surface}: {_part_of(said, marker)}")
        elif line.startswith(SEEN_LINE):
            parts.add(f"{surface}: seen when")
        else:
            parts.add(f"{surface}: a person's section or other line")
    return parts


def where_read(tenant: str, case: Case) -> set[str]:
    """The places (surface: part) an agent of ``case`` read one of its markers."""
    import digest
    from digest.agent_text import agent_body
    from digest.learning import summarize_body

    parts: set[str] = set()
    contacts: list[str | None] = [None, *sorted({r.contact_id for r in case.runs if r.contact_id})]
    for prompt in _prompts(case):
        for contact in contacts:
            parts |= _pitfalls_parts(case, _pitfalls(tenant, case.name, prompt, contact))
            for example in digest.examples(tenant, case.name, prompt, k=3, contact_id=contact):
                if _first_marker(case, example.draft):
                    parts.add("examples: draft")
                if _first_marker(case, example.final):
                    parts.add("examples: final")
    stored = _document(tenant, case.name)
    if stored is not None:
        body, change = stored
        read = agent_body(body)
        parts |= _document_parts(case, read, "document")
        parts |= _document_parts(case, summarize_body(read), "summary")
        if _first_marker(case, body) and not _first_marker(case, read):
            parts.add("document: stored only (not as read)")
        if _first_marker(case, change):
            parts.add("change note: title")
    return parts


def _document(tenant: str, agent: str) -> tuple[str, str] | None:
    """The latest learning version's body and change note, whatever its status."""
    from sqlalchemy import select

    from digest.db import session_scope
    from digest.models import LearningVersion
    from digest.tenants import find_agent

    with session_scope() as session:
        agent_id = find_agent(session, tenant, agent).id
        row = session.execute(
            select(LearningVersion.body_markdown, LearningVersion.change_summary)
            .where(LearningVersion.agent_id == agent_id)
            .order_by(LearningVersion.number.desc())
        ).first()
    return None if row is None else (row[0], row[1] or "")
