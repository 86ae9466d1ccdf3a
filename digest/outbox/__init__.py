"""The outbox: publishing reflect messages to the broker without Celery, and the relay that
re-publishes events whose message may be lost."""
