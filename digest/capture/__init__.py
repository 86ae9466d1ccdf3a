"""Capture: the agent's hot path (``record_*``), event schemas and validation, batch capture
from a JSON Lines file. Imports nothing heavy: no litellm, Celery, structlog or rapidfuzz."""
