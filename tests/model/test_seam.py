"""The model seam's offline path: ``offline/*`` is answered in process, not through litellm.

The same rendered messages go in and the same text comes out as through litellm's custom
provider; usage is recorded (estimated tokens, zero cost); errors keep their classes; and a
process that only uses the offline model never imports litellm.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from digest.errors import LLMOutputError, OfflineRulesError
from digest.model import seam as llm
from digest.model.prompts import load_prompt
from digest.model.offline import answer, token_estimate

ROOT = Path(__file__).resolve().parent.parent

_EVENT = {
    "id": 7,
    "kind": "run_outcome",
    "trust": "low",
    "payload": {
        "task": "Refund order 41655",
        "outcome": "failure",
        "tool_calls": [{"tool": "refund", "args": {}, "ok": False, "error": "amount is required"}],
    },
}


def _messages() -> list[dict[str, str]]:
    return load_prompt("reflect").render(
        agent="support", kind="run_outcome", trust="low", instructions="",
        event_json=json.dumps(_EVENT),
    )  # fmt: skip


def test_offline_call_answers_like_the_rules_and_records_usage() -> None:
    messages = _messages()
    usage = llm.Usage()
    text = llm.complete(messages, model="offline/rules", usage=usage)
    assert text == answer(messages)
    assert "<lesson>" in text and "refund" in text
    assert (usage.calls, usage.cost_usd) == (1, 0.0)
    assert (usage.prompt_tokens, usage.completion_tokens) == token_estimate(messages, text)


def test_offline_call_gives_the_same_text_as_the_litellm_custom_provider() -> None:
    litellm = llm._load_litellm()
    messages = _messages()
    via_litellm = litellm.completion(model="offline/rules", messages=messages)
    reported = via_litellm.usage
    usage = llm.Usage()
    assert llm.complete(messages, model="offline/rules", usage=usage) == llm._content(via_litellm)
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


def test_offline_request_without_a_block_fails_once_without_retry() -> None:
    usage = llm.Usage()
    with pytest.raises(OfflineRulesError):
        llm.call_and_parse(
            [{"role": "user", "content": "no blocks here"}],
            lambda text: text,
            model="offline/rules",
            usage=usage,
        )
    assert usage.calls == 1
    assert usage.errors and usage.errors[0].startswith("OfflineRulesError:")


def test_offline_answer_breaking_the_contract_is_retried_then_raised() -> None:
    def parse(text: str) -> str:
        raise LLMOutputError("never good enough")

    settings = llm.get_settings().model_copy(update={"llm_retry_wait_max_s": 0.0})
    usage = llm.Usage()
    with pytest.raises(LLMOutputError):
        llm.call_and_parse(
            _messages(), parse, model="offline/rules", usage=usage, settings=settings
        )
    assert usage.calls == settings.llm_max_attempts > 1


def test_reflecting_with_the_offline_model_never_imports_litellm(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from digest.capture.api import record_run\n"
        "from digest.migrate import upgrade\n"
        "from digest.pipeline import reflect_event\n"
        "from digest.config import get_settings\n"
        "upgrade(get_settings().database_url)\n"
        "event_id = record_run('t', 'a', task='refund', outcome='failure', idempotency_key='k',\n"
        "    tool_calls=[{'tool': 'refund', 'args': {}, 'ok': False, 'error': 'id is required'}])\n"
        "result = reflect_event(event_id)\n"
        "print(result.status, len(result.lesson_ids), 'litellm' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    env["DIGEST_DATABASE_URL"] = f"sqlite:///{tmp_path / 'digest.db'}"
    env["DIGEST_LLM_MODEL"] = "offline/rules"
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120, check=True,
    )  # fmt: skip
    assert out.stdout.split()[-3:] == ["reflected", "1", "False"]
