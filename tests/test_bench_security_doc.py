"""bench/security.py says how many cases it runs: its docstring counts are the tuned corpus's
(tests/adversarial/data/tuned), so a corpus that grows cannot leave them behind unnoticed.
The figures of a whole run are measured by the bench itself, not here."""

from __future__ import annotations

import re

from tests.adversarial.cases import ATTACKS, BENIGN
from tests.conftest import ROOT


def test_the_docstring_counts_the_tuned_corpus() -> None:
    doc = (ROOT / "bench" / "security.py").read_text().split('"""')[1]
    corpus = re.search(r"whole corpus \((\d+) attacks and (\d+) benign controls", doc)
    assert corpus, "the docstring no longer says how many cases the corpus has"
    assert (int(corpus[1]), int(corpus[2])) == (len(ATTACKS), len(BENIGN))
    example = re.search(r"\): (\d+) attacks, .*?; (\d+) benign,", " ".join(doc.split()))
    assert example, "the docstring's example line is gone"
    assert (int(example[1]), int(example[2])) == (len(ATTACKS), len(BENIGN))
