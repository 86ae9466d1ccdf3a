"""``offline/rules`` as a litellm custom provider, for code that calls litellm itself.

The pipeline does not come through here: ``digest.model.seam`` answers ``offline/*`` model
strings by calling ``digest.model.offline.answer`` directly (same messages in, same text out),
which spares the 10-40 ms litellm spends per call and litellm's import. This adapter keeps
``litellm.completion(model="offline/rules", ...)`` working once ``digest.model.seam`` has configured
litellm.
"""

from __future__ import annotations

from typing import Any

from litellm import CustomLLM, ModelResponse
from litellm.llms.custom_llm import CustomLLMError
from litellm.types.utils import Usage as LitellmUsage

from digest.errors import OfflineRulesError
from digest.model.offline import answer, token_estimate


class OfflineRules(CustomLLM):
    """litellm adapter: ``offline/rules`` → ``answer(messages)`` with token estimates."""

    def completion(self, *args: Any, **kwargs: Any) -> ModelResponse:
        messages: list[dict[str, Any]] = kwargs.get("messages") or (
            args[1] if len(args) > 1 else []
        )
        try:
            text = answer(messages)
        except OfflineRulesError as exc:
            raise CustomLLMError(status_code=400, message=str(exc)) from exc
        prompt_tokens, completion_tokens = token_estimate(messages, text)
        return ModelResponse(
            model="offline/rules",
            choices=[
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": text},
                }
            ],
            usage=LitellmUsage(
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                total_tokens=prompt_tokens + completion_tokens,
            ),
        )

    async def acompletion(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return self.completion(*args, **kwargs)
