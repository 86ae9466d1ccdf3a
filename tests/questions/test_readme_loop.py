"""README's "The agent asks its owner" block runs as written (test_docs_run runs only shell
blocks): asked first, then ``known`` with the owner's answer once the owner answered."""

from __future__ import annotations

import re

import pytest

import digest
from digest.questions.queue import answer_question
from tests.conftest import ROOT

pytestmark = pytest.mark.usefixtures("services_env")


def readme_ask_block() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### The agent asks its owner", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found is not None
    return found.group(1)


def test_the_readme_ask_loop_runs_as_written(tenant: str) -> None:
    code = readme_ask_block().replace('"acme"', repr(tenant))
    scope = {"digest": digest, "thread_id": "thread-1", "contact_id": "contact-1"}
    exec(compile(code, "README.md", "exec"), scope)
    assert scope["reply"] == "Let me check that with the team and get back to you."
    asked = scope["found"]
    answer_question(tenant, asked.question_id, "Yes, Saturdays 9-13.", by="ann")
    exec(compile(code, "README.md", "exec"), scope)
    assert scope["found"].status == "known"
    assert scope["reply"] == "Yes, Saturdays 9-13."
