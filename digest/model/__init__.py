"""The model seam: LLM calls through litellm, prompts, output contracts and their parsers, the
``offline/rules`` judge, and the answer cache. Imports no domain module."""
