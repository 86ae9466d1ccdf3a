"""digest.model.seam: one model call (``complete``) and a call with parsing and bounded retries
(``call_and_parse``).

``offline/*`` and ``scripted/*`` are answered in process, not through litellm: the same
rendered messages go in, usage is recorded (estimated tokens, zero cost), errors keep their
classes, transient faults and unparseable answers are retried up to DIGEST_LLM_MAX_ATTEMPTS,
and a process that only uses the offline model never imports litellm. On the litellm path a
worker's soft time limit stops the call at once instead of being retried. (The litellm path
against a misbehaving OpenAI-compatible server is tests/test_llm_faults.py.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from digest.config import Settings
from digest.errors import LLMError, LLMOutputError, LLMTransientError, OfflineRulesError
from digest.model import seam as llm
from digest.model.contracts import Skip, parse_reflect_output
from digest.model.offline import answer, token_estimate
from digest.model.prompts import load_prompt
from digest.model.scripted import Messages, scripted_model
from tests.conftest import ROOT

NO_WAIT = Settings(llm_max_attempts=3, llm_retry_wait_max_s=0)

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


# --- scripted/*: answered in process, like offline/* ------------------------------------------


def test_a_scripted_call_is_answered_by_its_handler_and_records_usage() -> None:
    with scripted_model(lambda messages: "<skip>scripted</skip>") as model:
        usage = llm.Usage()
        text = llm.complete(_messages(), model=model.name, usage=usage)
    assert text == "<skip>scripted</skip>"
    assert model.requests == [_messages()]
    assert (usage.calls, usage.cost_usd, usage.errors) == (1, 0.0, [])
    assert (usage.prompt_tokens, usage.completion_tokens) == token_estimate(_messages(), text)


def test_transient_faults_are_retried_and_every_attempt_is_counted() -> None:
    replies = iter([LLMTransientError("429 rate limited"), LLMTransientError("503"), None])

    def flaky(messages: Messages) -> str:
        fault = next(replies)
        if fault is not None:
            raise fault
        return "<skip>fine now</skip>"

    with scripted_model(flaky) as model:
        usage = llm.Usage()
        verdict = llm.call_and_parse(
            _messages(), parse_reflect_output, model=model.name, usage=usage, settings=NO_WAIT
        )
    assert verdict == Skip("fine now")
    assert usage.calls == len(model.requests) == 3
    assert usage.errors == ["LLMTransientError: 429 rate limited", "LLMTransientError: 503"]


def test_unparseable_answers_are_retried_then_the_last_error_is_raised() -> None:
    with scripted_model(lambda messages: "no idea, sorry") as model:
        usage = llm.Usage()
        with pytest.raises(LLMOutputError, match="no <skip> or <lesson>"):
            llm.call_and_parse(
                _messages(), parse_reflect_output, model=model.name, usage=usage, settings=NO_WAIT
            )
    assert usage.calls == 3 and len(usage.errors) == 3


@pytest.mark.parametrize(
    "fault", [LLMError("400 bad request"), RuntimeError("a bug in the handler")], ids=str
)
def test_permanent_faults_and_bugs_are_raised_at_once(fault: Exception) -> None:
    def broken(messages: Messages) -> str:
        raise fault

    with scripted_model(broken) as model:
        usage = llm.Usage()
        with pytest.raises(type(fault)):
            llm.call_and_parse(
                _messages(), parse_reflect_output, model=model.name, usage=usage, settings=NO_WAIT
            )
    assert usage.calls == 1 and usage.errors == [f"{type(fault).__name__}: {fault}"]


def test_a_scripted_model_nobody_registered_is_a_permanent_fault() -> None:
    usage = llm.Usage()
    with pytest.raises(LLMError, match="no handler is registered"):
        llm.call_and_parse(_messages(), str, model="scripted/nobody", usage=usage, settings=NO_WAIT)
    assert usage.calls == 1


def test_models_answered_in_process() -> None:
    assert llm.answered_in_process("offline/rules")
    assert llm.answered_in_process("scripted/anything")
    assert not llm.answered_in_process("openai/gpt-4o-mini")


# --- the litellm path ----------------------------------------------------------------------------


def test_soft_time_limit_inside_the_model_call_is_not_retried(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """litellm wraps a worker's SoftTimeLimitExceeded as a connection error; it must stop the
    task at once (the relay takes the event over), not be retried as a transient model fault."""
    from billiard.exceptions import SoftTimeLimitExceeded

    from digest.config import Settings
    from digest.model import seam as llm

    llm.warm_up()  # first: it keeps litellm from fetching its price map over the network
    import litellm
    from litellm import CustomLLM

    class OverTime(CustomLLM):
        def completion(self, *args: Any, **kwargs: Any) -> Any:
            raise SoftTimeLimitExceeded()

    # A provider litellm itself calls (offline/* is answered without litellm), so the
    # exception really passes through litellm's wrapping.
    providers = [
        *litellm.custom_provider_map,
        {"provider": "overtime", "custom_handler": OverTime()},
    ]
    monkeypatch.setattr(litellm, "custom_provider_map", providers)
    usage = llm.Usage()
    with pytest.raises(SoftTimeLimitExceeded):
        llm.call_and_parse(
            [{"role": "user", "content": "<event>{}</event>"}],
            str,
            model="overtime/any",
            usage=usage,
            settings=Settings(llm_max_attempts=3, llm_retry_wait_max_s=0),
        )
    assert usage.calls == 1


# --- the public pieces the embedding seam shares -------------------------------------------------


def test_litellm_is_configured_once_when_first_loaded() -> None:
    """Its process-wide settings are made by the first load, before any call: nothing a call
    does sets them again (a second load leaves a changed setting alone)."""
    script = (
        "import os, sys\n"
        "from digest.model import seam\n"
        "assert 'litellm' not in sys.modules\n"
        "litellm = seam.load_litellm()\n"
        "print(litellm.num_retries, litellm.DEFAULT_MAX_RETRIES, litellm.drop_params,\n"
        "      litellm.suppress_debug_info, os.environ['LITELLM_LOCAL_MODEL_COST_MAP'],\n"
        "      [p['provider'] for p in litellm.custom_provider_map])\n"
        "litellm.drop_params = 'changed'\n"
        "print(seam.load_litellm() is litellm, litellm.drop_params)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DIGEST_", "LITELLM_"))}
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120, check=True,
    )  # fmt: skip
    assert out.stdout.splitlines() == ["0 0 True True True ['offline']", "True changed"]


def test_call_args_turn_every_retry_off_and_name_the_provider() -> None:
    from pydantic import SecretStr

    assert llm.call_args("openai/m", timeout=3.0, api_base=None, api_key=None) == {
        "model": "openai/m", "timeout": 3.0, "num_retries": 0, "max_retries": 0,
    }  # fmt: skip
    local = llm.call_args("openai/m", timeout=3.0, api_base="http://h/v1", api_key=None)
    assert (local["api_base"], local["api_key"]) == ("http://h/v1", "no-key")
    keyed = llm.call_args("openai/m", timeout=3.0, api_base=None, api_key=SecretStr("sk-1"))
    assert keyed["api_key"] == "sk-1"


def test_provider_faults_are_classified_with_the_providers_retry_after() -> None:
    import httpx

    litellm = llm.load_litellm()
    request = httpx.Request("POST", "http://provider.test/v1/chat/completions")
    limited = litellm.RateLimitError(
        message="slow  down\nplease", llm_provider="openai", model="m",
        response=httpx.Response(429, headers={"retry-after": "7"}, request=request),
    )  # fmt: skip
    fault = llm.provider_fault(limited)
    assert fault.transient and fault.kind == "RateLimitError"
    assert fault.retry_after == 7.0
    assert fault.message.startswith("RateLimitError: ") and "\n" not in fault.message
    refused = litellm.AuthenticationError(
        message="bad key", llm_provider="openai", model="m",
        response=httpx.Response(401, request=request),
    )  # fmt: skip
    assert not llm.provider_fault(refused).transient
    assert not llm.provider_fault(ValueError("a bug")).transient


def test_a_time_limit_wrapped_by_litellm_is_raised_as_itself() -> None:
    from billiard.exceptions import SoftTimeLimitExceeded

    litellm = llm.load_litellm()
    limit = SoftTimeLimitExceeded()
    wrapped = litellm.APIConnectionError(message="wrapped", llm_provider="openai", model="m")
    wrapped.__cause__ = limit
    with pytest.raises(SoftTimeLimitExceeded):
        llm.provider_fault(wrapped)


@pytest.mark.parametrize(
    ("changes", "needed"),
    [
        ({}, False),  # offline/rules and the static table: a worker never loads litellm
        ({"embedding_model": "local"}, False),
        ({"embedding_model": "none"}, False),
        ({"llm_reconcile_model": "scripted/judge"}, False),
        ({"llm_model": "openai/gpt-4o-mini"}, True),
        ({"llm_summarize_model": "anthropic/claude-3-5-haiku"}, True),
        ({"embedding_model": "openai/text-embedding-3-small"}, True),
    ],
)
def test_a_worker_warms_litellm_up_only_for_a_model_that_needs_it(
    changes: dict[str, str], needed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    warmed: list[bool] = []
    monkeypatch.setattr(llm, "warm_up", lambda: warmed.append(True))
    settings = Settings(**{"llm_model": "offline/rules", "embedding_model": "static", **changes})
    assert llm.needs_litellm(settings) is needed
    assert llm.warm_up_for(settings) is needed
    assert warmed == ([True] if needed else [])
