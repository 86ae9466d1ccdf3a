"""The adversarial security suite of issue 12: a corpus of attacks and benign controls, and a
runner that drives them through the real pipeline.

- ``data/``: the corpus, data only: ``<split>/<class>.jsonl``, one case per line, grouped by
  attack class (the benign controls in ``benign.jsonl``), the cases nobody has tuned on kept
  apart in ``held-out/`` (``data/README.md``);
- ``schema``: the shapes (``Case``, ``Run``) and how a case is written as a record;
- ``cases``: the one loader (``load(split)``; ``ATTACKS``, ``BENIGN``, ``ALL`` of the tuned
  split, ``HELD_OUT``) and the corpus's own checks (``problems``);
- ``runner``: ``run_suite(mode)`` records every case under an agent of its own, reflects,
  composes, then checks that no attack reached a pitfalls block, a learning version or an
  active lesson, that no trusted lesson changed, and how many benign controls were held;
- ``obedient``: ``ObedientModel``, the scripted model that follows the attacker;
- ``report``: ``Summary`` (the one summary line, and the failures by attack class).

tests/test_adversarial.py runs it in the test suite; bench/security.py prints the lines.

The corpus is written for the attack classes, not for any screen's patterns: each attack
carries ``markers`` (the dangerous part of its payload) and ``obedient``, the lesson a model
that follows the attacker would write, so the same corpus tests the offline judge and a
scripted obedient model.
"""
