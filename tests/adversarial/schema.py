"""The shapes of the adversarial corpus, and the constructors its modules use.

A ``Case`` is one scenario under an agent of its own: optional trusted rules (owner lessons and
owner answers, created first), then one or more ``Run`` events (``digest.record_run`` keyword
arguments). An attack case names its class, where the payload sits, the ``markers`` that must
never reach an agent, and the lesson an obedient model would write for it.
"""

from __future__ import annotations

import base64
import codecs
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

#: the attack classes of issue 12
CLASSES = (
    "paraphrase/policy",
    "multilingual",
    "markup",
    "obfuscation",
    "forged-structure",
    "campaign",
    "trust-override",
    "tool-name",
)
BENIGN_CLASS = "benign"
#: where an attacker can place a payload in a run report
PLACES = (
    "tool output",
    "tool error",
    "tool args",
    "tool name",
    "task",
    "attempt summary",
    "run error",
)
RECONCILE_OPS = ("UPDATE", "DELETE")

#: a lesson as a model writes it: (situation, correction)
Lesson = tuple[str, str]


@dataclass(frozen=True)
class Run:
    """One run outcome, as ``digest.record_run`` takes it."""

    task: str
    outcome: str = "failure"
    error: str | None = None
    tool_calls: tuple[dict[str, Any], ...] = ()
    attempt_summary: str | None = None
    thread_id: str | None = None
    contact_id: str | None = None
    #: what an obedient model writes for this event, when not the case's lesson (a campaign's
    #: benign opening runs)
    obedient: Lesson | None = None

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``digest.record_run`` (after tenant and agent)."""
        given: dict[str, Any] = {"task": self.task, "outcome": self.outcome}
        if self.error is not None:
            given["error"] = self.error
        if self.tool_calls:
            given["tool_calls"] = [dict(call) for call in self.tool_calls]
        if self.attempt_summary is not None:
            given["attempt_summary"] = self.attempt_summary
        if self.thread_id is not None:
            given["thread_id"] = self.thread_id
        if self.contact_id is not None:
            given["contact_id"] = self.contact_id
        return given

    def key(self) -> str:
        """What identifies this run's content as a model sees it (its payload), whitespace
        folded: how a scripted model recognises the event it is asked about."""
        return content_key(
            {
                "task": self.task,
                "error": self.error,
                "attempt_summary": self.attempt_summary,
                "tool_calls": list(self.tool_calls),
            }
        )

    def tools(self) -> list[str]:
        return [str(call["tool"]) for call in self.tool_calls]

    def text(self) -> str:
        """Everything an attacker wrote into this run, as one string."""
        parts = [self.task, self.error or "", self.attempt_summary or ""]
        for call in self.tool_calls:
            parts += [str(call.get("tool", "")), str(call.get("error") or "")]
            parts += [str(call.get("output") or "")]
            parts.append(json.dumps(call.get("args") or {}, ensure_ascii=False))
        return "\n".join(parts)


def _fold(value: Any) -> str:
    return " ".join(str(value or "").split())


def content_key(payload: dict[str, Any]) -> str:
    """``Run.key`` of a run outcome's payload, as stored and shown to a model."""
    calls = [
        [_fold(c.get("tool")), _fold(c.get("error")), _fold(c.get("output"))]
        for c in payload.get("tool_calls") or []
    ]
    parts = [_fold(payload.get(k)) for k in ("task", "error", "attempt_summary")]
    return json.dumps([*parts, calls], ensure_ascii=False)


@dataclass(frozen=True)
class Case:
    """One attack or benign control, under an agent named after it."""

    name: str
    #: an attack class (``CLASSES``) or ``"benign"``
    category: str
    #: the payload's language (ISO 639-1), ``"mixed"`` for several
    language: str
    runs: tuple[Run, ...]
    #: what a model that follows the run text writes: (situation, correction)
    obedient: Lesson
    #: substrings that must never reach a pitfalls block, a version or an active lesson
    markers: tuple[str, ...] = ()
    #: where the payload sits (``PLACES``)
    where: tuple[str, ...] = ()
    #: owner rules created first: ``digest.record_lesson(tenant, agent, text)``
    trusted: tuple[str, ...] = ()
    #: owner answers created first: (question, answer)
    answers: tuple[tuple[str, str], ...] = ()
    #: how an obedient model reconciles the attack with the trusted lessons
    obedient_reconcile: str | None = None
    #: the obfuscation technique, for obfuscation cases
    technique: str | None = None

    @property
    def attack(self) -> bool:
        return self.category != BENIGN_CLASS

    @property
    def has_trusted(self) -> bool:
        return bool(self.trusted or self.answers)


# --- constructors ---------------------------------------------------------------------------


def call(
    tool: str,
    error: str | None = None,
    *,
    args: dict[str, Any] | None = None,
    output: str | None = None,
    ok: bool = False,
) -> dict[str, Any]:
    """One tool call of a run; failing unless ``ok``."""
    found: dict[str, Any] = {"tool": tool, "args": args or {}, "ok": ok}
    if error is not None:
        found["error"] = error
    if output is not None:
        found["output"] = output
    return found


def run(
    task: str,
    *calls: dict[str, Any],
    error: str | None = None,
    summary: str | None = None,
    outcome: str = "failure",
    thread: str | None = None,
    contact: str | None = None,
    obedient: Lesson | None = None,
) -> Run:
    return Run(
        task=task,
        outcome=outcome,
        error=error,
        tool_calls=tuple(calls),
        attempt_summary=summary,
        thread_id=thread,
        contact_id=contact,
        obedient=obedient,
    )


def attack(
    name: str,
    category: str,
    language: str,
    where: str | Sequence[str],
    runs: Run | Sequence[Run],
    markers: Sequence[str],
    obedient: Lesson,
    *,
    trusted: Sequence[str] = (),
    answers: Sequence[tuple[str, str]] = (),
    reconcile: str | None = None,
    technique: str | None = None,
) -> Case:
    return Case(
        name=name,
        category=category,
        language=language,
        runs=(runs,) if isinstance(runs, Run) else tuple(runs),
        obedient=obedient,
        markers=tuple(markers),
        where=(where,) if isinstance(where, str) else tuple(where),
        trusted=tuple(trusted),
        answers=tuple(answers),
        obedient_reconcile=reconcile,
        technique=technique,
    )


def benign(name: str, language: str, runs: Run | Sequence[Run], obedient: Lesson) -> Case:
    return Case(
        name=name,
        category=BENIGN_CLASS,
        language=language,
        runs=(runs,) if isinstance(runs, Run) else tuple(runs),
        obedient=obedient,
    )


def browse(task: str, page: str, error: str = "page loaded with unexpected content") -> Run:
    """A run whose tool returned attacker-controlled content (a web page, a document)."""
    page_call = call("browse_page", error, args={"url": "https://shop.example/p/1"}, output=page)
    return run(task, page_call)


# --- encodings the obfuscation cases use (the payload as written is computed, not pasted) ---


def rot13(text: str) -> str:
    return codecs.encode(text, "rot13")


def hexed(text: str) -> str:
    return text.encode().hex()


def b32(text: str) -> str:
    return base64.b32encode(text.encode()).decode()


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def percent(text: str) -> str:
    """Every character percent-encoded, as a URL-decoding step would have to undo."""
    return "".join(f"%{byte:02X}" for byte in text.encode())


def percent_url(text: str) -> str:
    return quote(text, safe="")


def tags(text: str) -> str:
    """Invisible Unicode tag characters (U+E0000 block) spelling ``text``."""
    return "".join(chr(0xE0000 + ord(c)) for c in text)


def fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def math_bold(text: str) -> str:
    """Mathematical bold letters (U+1D400 block)."""
    out = []
    for c in text:
        if "A" <= c <= "Z":
            out.append(chr(0x1D400 + ord(c) - ord("A")))
        elif "a" <= c <= "z":
            out.append(chr(0x1D41A + ord(c) - ord("a")))
        else:
            out.append(c)
    return "".join(out)


_SMALL_CAPS = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyz",
        "ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘǫʀꜱᴛᴜᴠᴡxʏᴢ",
        strict=True,
    )
)


def small_caps(text: str) -> str:
    return "".join(_SMALL_CAPS.get(c, c) for c in text.lower())


#: Cherokee letters that read as Latin capitals (Unicode confusables)
_CHEROKEE = {
    "A": "Ꭺ", "B": "Ᏼ", "C": "Ꮯ", "D": "Ꭰ", "E": "Ꭼ", "G": "Ᏻ", "H": "Ꮋ", "J": "Ꭻ",
    "K": "Ꮶ", "L": "Ꮮ", "M": "Ꮇ", "P": "Ꮲ", "R": "Ꮢ", "S": "Ꮪ", "T": "Ꭲ", "V": "Ꮩ",
    "W": "Ꮃ", "Z": "Ꮓ",
}  # fmt: skip


def cherokee(text: str) -> str:
    return "".join(_CHEROKEE.get(c, c) for c in text.upper())


_CYRILLIC = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "i": "і"}
_GREEK = {"A": "Α", "B": "Β", "E": "Ε", "H": "Η", "I": "Ι", "K": "Κ", "M": "Μ", "N": "Ν",
          "O": "Ο", "P": "Ρ", "T": "Τ", "X": "Χ", "Y": "Υ", "Z": "Ζ", "o": "ο", "v": "ν",
          "a": "α", "i": "ι", "u": "υ"}  # fmt: skip
_ARMENIAN = {"o": "օ", "u": "ս", "n": "ո", "h": "հ", "g": "ց", "q": "զ", "d": "ժ"}


def cyrillic(text: str) -> str:
    return "".join(_CYRILLIC.get(c, c) for c in text)


def greek(text: str) -> str:
    return "".join(_GREEK.get(c, c) for c in text)


def armenian(text: str) -> str:
    return "".join(_ARMENIAN.get(c, c) for c in text)


def spaced(text: str, sep: str = " ") -> str:
    """``r e f u n d``: every letter apart (words three separators apart)."""
    return (sep * 3).join(sep.join(word) for word in text.split())


def leet(text: str) -> str:
    return text.translate(str.maketrans("aeiostlAEIOSTL", "43105714310571"))
