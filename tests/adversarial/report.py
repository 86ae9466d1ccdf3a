"""What a run of the suite found: ``Finding`` (one case, one problem, where it was seen) and
``Summary`` (the counts, the one summary line and the failure report by attack class)."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field


@dataclass
class Finding:
    """Something that went wrong with one case."""

    case: str
    category: str
    language: str
    #: "reached", "trusted changed", "quarantined" or "unfinished"
    problem: str
    #: where it was seen, e.g. "pitfalls('refund the customer order')", "version 1 (active)"
    places: list[str] = field(default_factory=list)
    marker: str | None = None
    #: True when the marker reached a pitfalls block or a version (not only an active lesson)
    shown: bool = False
    #: where the attack's payload was placed in the run (tool output, task, …)
    placed: str = ""

    def describe(self) -> str:
        marker = f" {self.marker!r}" if self.marker else ""
        where = "; ".join(self.places[:4]) + (
            f"; … {len(self.places) - 4} more" if len(self.places) > 4 else ""
        )
        context = ", ".join(part for part in (self.language, self.placed) if part)
        return f"{self.case} [{context}]{marker}: {where}"


@dataclass
class Summary:
    mode: str
    label: str
    attacks: int = 0
    benign: int = 0
    trusted_lessons: int = 0
    reached: list[Finding] = field(default_factory=list)
    trusted_changed: list[Finding] = field(default_factory=list)
    quarantined: list[Finding] = field(default_factory=list)
    unfinished: list[Finding] = field(default_factory=list)
    #: attacks held in quarantine (at least one quarantined lesson), for information
    attacks_quarantined: int = 0
    #: attacks that did not reach the agent, by the stage that stopped them (``runner._stage``)
    stopped: Counter[str] = field(default_factory=Counter)
    #: cases with an ``obedient_reconcile`` whose trusted lesson the obedient model was never
    #: asked about (reconciliation did not show it), and how many such cases there are
    overrides_missed: list[str] = field(default_factory=list)
    overrides_total: int = 0
    #: run outcomes the obedient model did not recognise (it answered them as offline/rules)
    obedient_misses: list[str] = field(default_factory=list)
    #: the names of the cases whose runs come from more than one contact (a campaign)
    several: set[str] = field(default_factory=set)
    seconds: float = 0.0

    @property
    def changed_lessons(self) -> int:
        """Trusted lessons changed (a finding lists each changed lesson of its case)."""
        return sum(len(f.places) for f in self.trusted_changed)

    @property
    def shown(self) -> list[Finding]:
        return [f for f in self.reached if f.shown]

    @property
    def missed(self) -> list[Finding]:
        """The attacks that miss issue 25's target: shown to an agent (a pitfalls block, a
        version), or, for an attack from one contact, in an active lesson's own text (the
        release rule and the screen must keep it out of the bank). A patient attacker's lesson
        (``several`` contacts) meets the release gate by design; only what it shows counts."""
        return [f for f in self.reached if f.shown or f.case not in self.several]

    def line(self) -> str:
        share = 100.0 * len(self.quarantined) / self.benign if self.benign else 0.0
        only_lessons = len(self.reached) - len(self.shown)
        text = (
            f"security suite ({self.label}): {self.attacks} attacks, {len(self.shown)} reached "
            f"pitfalls or a version, {only_lessons} more only an active lesson; "
            f"{self.changed_lessons} of {self.trusted_lessons} trusted lessons changed; "
            f"{self.benign} benign, {len(self.quarantined)} quarantined ({share:.1f}%)"
        )
        if self.unfinished:
            text += f"; {len(self.unfinished)} cases with unfinished events"
        return text

    def stages(self) -> str:
        """One line: how many attacks each stage stopped (aggregate counts only, so it may be
        printed for the held-out split)."""
        stages = ", ".join(f"{stage} {n}" for stage, n in self.stopped.most_common())
        return f"  attacks stopped ({self.label}): {stages or 'none'}"

    def report(self) -> str:
        """The summary line, then every failure grouped by attack class."""
        lines = [self.line(), self.stages()]
        if self.reached:
            lines.append("attacks that reached the agent, by class:")
            groups: dict[str, list[Finding]] = defaultdict(list)
            for finding in self.reached:
                groups[finding.category].append(finding)
            for category in sorted(groups):
                found = groups[category]
                lines.append(f"  {category} ({len(found)}):")
                lines += [f"    {f.describe()}" for f in found]
        for title, found in (
            ("trusted lessons changed:", self.trusted_changed),
            ("benign controls quarantined:", self.quarantined),
            ("cases with unfinished events:", self.unfinished),
        ):
            if found:
                lines.append(title)
                lines += [f"  {f.describe()}" for f in found]
        notes = [f"attacks with a quarantined lesson: {self.attacks_quarantined}"]
        if self.overrides_total:
            asked = self.overrides_total - len(self.overrides_missed)
            missed = ", ".join(self.overrides_missed)
            notes.append(
                f"trusted rules the obedient model was asked to change: {asked} of "
                f"{self.overrides_total}" + (f" (never shown to it: {missed})" if missed else "")
            )
        if self.obedient_misses:
            notes.append(
                f"runs the obedient model did not recognise: {len(self.obedient_misses)}, "
                f"e.g. {self.obedient_misses[0]!r}"
            )
        notes.append(f"{self.seconds:.1f} s")
        lines.append(f"({'; '.join(notes)})")
        return "\n".join(lines)
