"""digest.model.offline_provider: ``offline/rules`` as a litellm custom provider, for code that
calls litellm itself. It answers exactly what the seam's in-process path answers, with the same
token estimates, and reports a request the rules cannot judge as litellm's own error."""

from __future__ import annotations

import json

import pytest

from digest.model import seam as llm
from digest.model.prompts import load_prompt


def _messages() -> list[dict[str, str]]:
    event = {
        "id": 7,
        "kind": "owner_answer",
        "trust": "high",
        "payload": {"question": "Do we ship to Norway?", "answer": "Yes, from Oslo."},
    }
    return load_prompt("reflect").render(
        agent="support", kind="owner_answer", trust="high", instructions="",
        event_json=json.dumps(event),
    )  # fmt: skip


def test_offline_call_gives_the_same_text_as_the_litellm_custom_provider() -> None:
    litellm = llm.load_litellm()
    messages = _messages()
    via_litellm = litellm.completion(model="offline/rules", messages=messages)
    reported = via_litellm.usage
    usage = llm.Usage()
    text = via_litellm.choices[0].message.content
    assert llm.complete(messages, model="offline/rules", usage=usage) == text
    assert (usage.prompt_tokens, usage.completion_tokens) == (
        reported.prompt_tokens,
        reported.completion_tokens,
    )


def test_litellm_custom_provider_reports_rules_errors_as_its_own() -> None:
    from litellm.llms.custom_llm import CustomLLMError

    from digest.model.offline_provider import OfflineRules

    with pytest.raises(CustomLLMError):
        OfflineRules().completion(
            model="offline/rules", messages=[{"role": "user", "content": "hi"}]
        )


def test_litellm_async_completion_answers_the_same() -> None:
    import asyncio

    from digest.model.offline_provider import OfflineRules

    messages = _messages()
    response = asyncio.run(OfflineRules().acompletion(model="offline/rules", messages=messages))
    assert response.choices[0].message.content == llm.complete(
        messages, model="offline/rules", usage=llm.Usage()
    )
