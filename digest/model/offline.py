"""``offline/rules``: the deterministic judge, the model seam's in-memory twin.

It is the in-memory twin of a real model: it reads the structured blocks the prompts already
carry and answers in the same output contract a real model must follow, so one pipeline serves
both. It is honest about being rules. This module reads a request and dispatches on its blocks:

- a reflect request (the ``<event>`` JSON) to ``digest.model.offline_reflect``: a lesson about
  a tool error or a failure, a preference from an operator edit, a fact from an owner answer,
  ``<skip>`` for transient faults. A run's text is untrusted (DESIGN §8, issue 12): it is only
  ever quoted, bounded and escaped, in lessons written in the rules' own words;
- a reconcile request (``<existing>`` and ``<candidates>``) to
  ``digest.model.offline_reconcile``: fingerprints first, then words; it never loses a fact;
- a same-question request (``<question>`` and ``<open_questions>``) to
  ``digest.model.offline_questions``: does a new question ask what an open one asks?
- a summarize request (``<added>``, ``<changed>``, ``<retired>``) to the contract's own
  ``change_note``.

The rule functions are pure (``answer`` and what it calls) and import nothing heavy: the model
seam (``digest.model.seam``) calls ``answer`` directly for ``offline/*`` model strings, so the
offline pipeline never imports litellm. For litellm users the same rules are also registered
as a litellm custom provider (``digest.model.offline_provider``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from digest.errors import OfflineRulesError
from digest.model.contracts import change_note
from digest.model.offline_questions import judge as judge_questions
from digest.model.offline_reconcile import reconcile
from digest.model.offline_reflect import judge_event
from digest.model.prefixes import OFFLINE_PREFIX

#: model strings answered by these rules, in process
PREFIX = OFFLINE_PREFIX


def is_offline_model(model: str) -> bool:
    """Is ``model`` answered in process by these rules (no network, no litellm)?"""
    return model.startswith(PREFIX)


ADDED_BLOCK = re.compile(r"<added>\s*(.*?)\s*</added>", re.DOTALL)
CHANGED_BLOCK = re.compile(r"<changed>\s*(.*?)\s*</changed>", re.DOTALL)
RETIRED_BLOCK = re.compile(r"<retired>\s*(.*?)\s*</retired>", re.DOTALL)
EVENT_BLOCK = re.compile(r"<event>\s*(.*?)\s*</event>", re.DOTALL)
EXISTING_BLOCK = re.compile(r"<existing>\s*(.*?)\s*</existing>", re.DOTALL)
CANDIDATES_BLOCK = re.compile(r"<candidates>\s*(.*?)\s*</candidates>", re.DOTALL)
QUESTION_BLOCK = re.compile(r"<question>\s*(.*?)\s*</question>", re.DOTALL)
OPEN_QUESTIONS_BLOCK = re.compile(r"<open_questions>\s*(.*?)\s*</open_questions>", re.DOTALL)


def answer(messages: list[dict[str, Any]]) -> str:
    """Dispatch on what the prompt carries; raise for a request no rule understands."""
    text = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
    blocks = [b.search(text) for b in (ADDED_BLOCK, CHANGED_BLOCK, RETIRED_BLOCK)]
    if all(blocks):
        try:
            lists = [json.loads(b.group(1)) for b in blocks if b]
            return change_note(*([str(t) for t in items] for items in lists))
        except (json.JSONDecodeError, TypeError) as exc:
            raise OfflineRulesError(f"bad summarize blocks: {exc}") from exc
    existing, candidates = EXISTING_BLOCK.search(text), CANDIDATES_BLOCK.search(text)
    if existing and candidates:
        try:
            return reconcile(json.loads(existing.group(1)), json.loads(candidates.group(1)))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise OfflineRulesError(f"bad reconcile blocks: {exc}") from exc
    question, open_questions = QUESTION_BLOCK.search(text), OPEN_QUESTIONS_BLOCK.search(text)
    if question and open_questions:
        try:
            return judge_questions(
                json.loads(question.group(1)), json.loads(open_questions.group(1))
            )
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise OfflineRulesError(f"bad same-question blocks: {exc}") from exc
    found = EVENT_BLOCK.search(text)
    if found:
        try:
            event = json.loads(found.group(1))
        except json.JSONDecodeError as exc:
            raise OfflineRulesError(f"<event> is not JSON: {exc}") from exc
        return judge_event(event)
    raise OfflineRulesError("offline/rules found no block it can judge")


def token_estimate(messages: list[dict[str, Any]], text: str) -> tuple[int, int]:
    """(prompt, completion) tokens as the rules report them: about four characters a token."""
    prompt_chars = sum(len(str(m.get("content") or "")) for m in messages)
    return prompt_chars // 4 + 1, len(text) // 4 + 1
