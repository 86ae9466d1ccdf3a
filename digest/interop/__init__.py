"""AIP-11 (``agentlearning/v1``) LESSON.md export and import.

Export writes ``<slug>/LESSON.md`` per active agent-wide lesson: YAML front matter (schema,
slug, title, trigger, outcome, evidence, confidence, success_count, failure_count,
supersedes, expires_at) and the sections "When this applies", "What to do (or avoid)" and
"Counter-example"; plus ``_index.md`` listing every lesson's slug, title, outcome,
confidence and counts. The folder mirrors the bank: export records what it wrote in
``.digest-export.json``, and exporting again into the same folder removes the files it wrote
for lessons that are no longer active (a file changed by hand since is kept and reported;
files export did not write are never touched).

Import reads every ``LESSON.md`` below a folder, one file at a time, and only regular files:
no FIFO, device or directory, and no symbolic link that leads outside the folder (one that
stays inside is read as its target). Each file is read (at most ``MAX_FILE_BYTES`` of UTF-8)
and validated completely (front matter, sections, every cap the capture path checks) before
anything is stored; then it is stored and reconciled on its own. A bad file is reported with
its reason and the others go on; a file whose reconciliation fails leaves nothing behind (its
event is withdrawn), so importing it again later starts afresh. Imports are untrusted unless
the owner passes ``--trusted``: screened like run text and shown as observations. Counts and
confidence in a file are ignored: they are only ever computed from observed outcomes. Every
imported lesson becomes a ``manual_lesson`` event and goes through reconciliation, so
importing a lesson the agent already has adds support instead of a copy, and importing the
same file twice adds nothing.

The modules: ``lesson_md`` (the file format, written and read), ``exporting`` (the mirrored
folder), ``lesson_files`` (finding and safely reading the files below a folder) and
``importing`` (one file at a time through reconciliation).
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from digest.interop.exporting import MANIFEST_FILE, ExportReport, export_lessons
    from digest.interop.importing import ImportReport, import_lessons, lesson_payload
    from digest.interop.lesson_files import MAX_FILE_BYTES, read_lesson_file
    from digest.interop.lesson_md import SCHEMA, ParsedLesson, parse_lesson_md, render_lesson_md

#: each public name → its module, imported when the name is first used: an export needs
#: neither the pipeline nor the model seam that an import reconciles through (``digest export``
#: would otherwise load them all)
_SOURCES = {
    **dict.fromkeys(("MANIFEST_FILE", "ExportReport", "export_lessons"), "exporting"),
    **dict.fromkeys(("ImportReport", "import_lessons", "lesson_payload"), "importing"),
    **dict.fromkeys(("MAX_FILE_BYTES", "read_lesson_file"), "lesson_files"),
    **dict.fromkeys(("SCHEMA", "ParsedLesson", "parse_lesson_md", "render_lesson_md"), "lesson_md"),
}


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module 'digest.interop' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"digest.interop.{source}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


__all__ = [
    "MANIFEST_FILE",
    "MAX_FILE_BYTES",
    "SCHEMA",
    "ExportReport",
    "ImportReport",
    "ParsedLesson",
    "export_lessons",
    "import_lessons",
    "lesson_payload",
    "parse_lesson_md",
    "read_lesson_file",
    "render_lesson_md",
]
