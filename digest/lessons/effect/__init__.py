"""Measured lesson effect (issue 16): does an agent succeed more, or less, when a lesson is
applied?

Only outcomes count, never a model's opinion. A run outcome names the lessons the agent had in
context (``applied_lesson_ids``) and how the run ended; from those rows alone, per lesson:

- **applied**: the runs it was applied in, since it exists (and within
  ``DIGEST_EFFECT_WINDOW_DAYS``), that ended ``success`` or ``failure``;
- **baseline**: the agent's other runs over the same period, those in which the lesson was
  *not* applied. Not all runs: a lesson applied in most runs would pull an all-runs baseline
  towards itself and hide its own harm. Not all time: runs before the lesson existed belong to
  an agent that knew less, which would flatter or blame the lesson for what changed since;
- a **Wilson score interval** for each success rate (at ``DIGEST_EFFECT_CONFIDENCE``), which
  stays honest for small counts and rates near 0 or 1;
- a **verdict**: ``harms`` when the lesson's interval lies wholly below the baseline's,
  ``helps`` when wholly above, ``unclear`` when they overlap, and ``insufficient`` while either
  side has fewer than ``DIGEST_EFFECT_MIN_RUNS`` runs (no verdict on a handful of runs).

Escalated runs count on neither side: handing a run to a person may be exactly what a lesson
asks for (the lesson counters of ``apply_outcome_feedback`` ignore them too). Every captured
run counts, reflected or not: the outcome is known when the agent reports it.

Comparing intervals rather than a rate with a rate is deliberately conservative: a lesson is
offered for the situations it is about, which may be harder than the agent's average, so only a
gap beyond both intervals' uncertainty says the lesson itself is the problem.

The weekly sweep retires (``disabled``, through ``transition``, with the evidence in the
history row) active lessons measured as harmful, unless a person wrote or reviewed them
(trust ``trusted`` or ``reviewed``): those are flagged for their owner (``action`` ``review``
in ``digest lesson effect``) and never removed behind the owner's back.

The modules: ``verdict`` (the statistics: tallies, Wilson intervals, the verdict on two
tallies), ``measure`` (counting an agent's runs into each lesson's effect, and the report
``digest lesson effect`` prints), ``retire`` (the weekly sweep's part: retiring lessons
measured as harmful).
"""
