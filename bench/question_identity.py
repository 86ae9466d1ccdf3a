"""Question identity (issue 28): how many paraphrases of one question end as one question, and
how many near misses stay apart, on the tuning split and the held-out split.

The data: ``tests/questions/data/tuning.json`` (the offline judge's rules were fitted to it)
and ``tests/questions/data/held_out/questions.json`` (written before, never tuned on). Each
group holds ways to ask one question (``same``) and questions of the same topic that ask
something else (``near``). This prints figures only, never a case of the held-out split.

For each split and each step of identity:

- ``ask`` (the hot path: ``digest.questions.same.same_question``, the facts) and
- ``worker`` (the hot path, then the merge: the facts, embedding neighbours, the offline judge
  ``digest.model.offline_questions``),

paraphrase pairs joined (of all pairs within a group: the new one against the older), near-miss
pairs kept apart (each near miss against each paraphrase of its group), and the questions the
group's paraphrases end as when asked one after another in the order written (1 is ideal).

    python -m bench.question_identity
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

from digest.model.offline_questions import same_question as judged_same
from digest.questions.neighbours import nearest
from digest.questions.same import NEIGHBOUR_RELEVANCE, question_fact, same_question

DATA = Path(__file__).resolve().parent.parent / "tests" / "questions" / "data"
SPLITS = {"tuning": DATA / "tuning.json", "held-out": DATA / "held_out" / "questions.json"}

Same = Callable[[str, str], bool]


def by_facts(new: str, old: str) -> bool:
    return same_question(question_fact(new), question_fact(old))


def by_worker(new: str, old: str) -> bool:
    """The worker's steps in order (``digest.questions.merge._survivor``) for one pair."""
    if by_facts(new, old):
        return True
    row = SimpleNamespace(id=1, text=old)
    from digest import facts

    apart = facts.names_apart(question_fact(new), question_fact(old))
    if not apart and nearest(new, [row], NEIGHBOUR_RELEVANCE) is not None:
        return True
    return judged_same(new, old)


def score(path: Path, same: Same, every_wording: bool) -> dict[str, int]:
    groups = json.loads(path.read_text(encoding="utf-8"))["groups"]
    out = dict.fromkeys(("pairs", "joined", "near", "apart", "groups", "asked", "questions"), 0)
    for group in groups:
        paraphrases, near = group["same"], group["near"]
        for old, new in itertools.combinations(paraphrases, 2):
            out["pairs"] += 1
            out["joined"] += same(new, old)
        for new in near:
            for old in paraphrases:
                out["near"] += 1
                out["apart"] += not same(new, old)
        # the worker compares a question with every wording an open one was asked in and
        # merges every open one it asks again into one (``merge._matches``); ``ask`` joins the
        # first open question whose own words it repeats
        kept: list[list[str]] = []
        for new in paraphrases:
            if every_wording:
                into = [q for q in kept if any(same(new, old) for old in q)]
            else:
                into = [q for q in kept if same(new, q[0])][:1]
            kept = [q for q in kept if q not in into] + [[w for q in into for w in q] + [new]]
        out["groups"] += 1
        out["asked"] += len(paraphrases)
        out["questions"] += len(kept)
    return out


def main() -> None:
    print("question identity: paraphrase pairs joined, near-miss pairs kept apart, questions")
    print("the paraphrases of a group end as (ideal: one per group)")
    for split, path in SPLITS.items():
        for step, same in (("ask (facts)", by_facts), ("worker (+ judge)", by_worker)):
            s = score(path, same, every_wording=same is by_worker)
            print(
                f"  {split:9s} {step:17s} joined {s['joined']}/{s['pairs']} "
                f"({s['joined'] / s['pairs']:.0%}), apart {s['apart']}/{s['near']} "
                f"({s['apart'] / s['near']:.0%}), {s['asked']} paraphrases in {s['groups']} "
                f"groups -> {s['questions']} questions"
            )


if __name__ == "__main__":
    main()
