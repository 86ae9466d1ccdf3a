"""digest.model.prompts: the prompt files, a system text and a user template per step,
versioned by the hash of their content and read again only when a file changes."""

from __future__ import annotations

import hashlib

import pytest

from digest.config import resource_dir
from digest.model.prompts import Prompt, load_prompt

STEPS = ("reflect", "reconcile", "summarize")


@pytest.mark.parametrize("name", STEPS)
def test_each_step_has_a_prompt_hashed_by_its_content(name: str) -> None:
    prompt = load_prompt(name)
    folder = resource_dir("prompts")
    system = (folder / f"{name}.md").read_text(encoding="utf-8")
    user = (folder / f"{name}_event.md").read_text(encoding="utf-8")
    assert (prompt.name, prompt.system, prompt.user_template) == (name, system, user)
    assert prompt.hash == hashlib.sha256(f"{system}\0{user}".encode()).hexdigest()[:16]


def test_the_steps_have_distinct_versions() -> None:
    assert len({load_prompt(name).hash for name in STEPS}) == len(STEPS)


def test_a_prompt_is_read_once_while_its_files_stay_the_same() -> None:
    assert load_prompt("reflect") is load_prompt("reflect")


def test_render_gives_the_system_text_and_the_filled_in_user_message() -> None:
    messages = load_prompt("reflect").render(
        agent="support-bot", kind="run_outcome", trust="low", instructions="",
        event_json='{"id": 1}',
    )  # fmt: skip
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert "Agent: support-bot" in user and '<event>\n{"id": 1}\n</event>' in user
    assert "$" not in user


def test_render_leaves_unknown_placeholders_and_dollars_alone() -> None:
    prompt = Prompt(name="t", system="s", user_template="$known costs $5, $unknown", hash="h")
    assert prompt.render(known="It")[1]["content"] == "It costs $5, $unknown"


def test_an_unknown_prompt_is_a_missing_file() -> None:
    with pytest.raises(FileNotFoundError):
        load_prompt("no-such-step")
