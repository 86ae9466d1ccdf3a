"""Replay before publishing (issue 16): would a version have put a relevant lesson in front of
the agent for its recent failures?

Every compose (and ``digest version replay``) takes the agent's most recent failed or edited
events, ``DIGEST_REPLAY_EVENTS`` of them, from before and after the active version alike:

- run outcomes that ended ``failure`` or ``escalated``;
- operator edits that changed the draft (or rejected it).

Events the judge skipped (transient faults: nothing to learn) are left out. Each event is
replayed on its *probe*, the text the agent had when it asked for its pitfalls: a run's task,
an edit's context (else the draft the operator edited).

**The retrieval is the agent's own**: ``digest.retrieve.ranked_parts``, ``merged_scores``
(with ``with_siblings``) and ``best_of``, the ranking ``pitfalls`` runs (the prompt's
keywords and, with embeddings, its cosine; a task's other lessons after its best; ties to
the lesson surfaced more often, then seen last), over the agent's kept index with the masks
cut to the lessons a version folds (no hit is counted). A version's lessons that
index no longer holds (superseded, disabled or expired since) are indexed apart for the
replay, so the active version is replayed with what it shows. Lessons are ranked with their
text as it is now.

**Coverage.** A lesson is *relevant* to an event when it cites the event as evidence (it was
learned from it, or a repeat of it added support), or when its fingerprint is one of the
event's (``digest.fingerprint.event_keys``: the same tool and error template, the same edit
rule). Neither depends on the words of the lesson or of the event: a lesson stuffed with every
keyword is surfaced for everything and relevant to nothing it was not learned from, and a
paraphrased repeat of a failure still has its fingerprint. Per event and version:

- ``surfaced``: the retrieval's top ``DIGEST_REPLAY_K`` for the probe holds a relevant lesson
  (the event is *covered*);
- ``folded``: a relevant lesson is in the document, but the retrieval does not rank it in
  the top k for the probe;
- ``missed``: no lesson of the version is relevant.

Coverage is the share of replayed events covered. Compose holds a proposal that covers fewer
events than the active version by more than ``DIGEST_REPLAY_MARGIN`` of them.

**Cost.** Ranking is in memory (the index is the one ``pitfalls`` keeps), once per event for
both versions; an event no lesson of either version is relevant to is not ranked at all. Each
process keeps what it read of an event (``EventFacts``: events never change), and with an
embedding model each probe is embedded once and stored (``replay_probes``), so a compose in
another process reads its vector instead of embedding it again. Nothing here calls a
language model. ``bench/replay.py`` measures it against the compose itself.

The modules, in the order a replay uses them:

- ``probes``: the events replayed, their probe text, and their stored probe vectors;
- ``facts``: what this process keeps of each event it replayed;
- ``relevance``: which lessons are relevant to each event (evidence or fingerprint);
- ``plan``: ``prepare`` reads all that in a transaction, ``ReplayPlan.run`` ranks outside one;
- ``report``: what the replay found, per event and in total, as stored with the version;
- ``verdict``: why a proposal must wait for a person (coverage lost, a sharp shrink), not
  counting the lessons the sweep withdrew.
"""
