"""Reflection: trigger policy, claims, judging and the injection screen, reconciliation,
applying the plan (one event at a time or in batches), and compaction of a lesson bank through
the same reconciliation. Orchestrated by ``digest.pipeline``."""
