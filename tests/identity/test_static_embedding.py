"""The static embedding table (``digest.identity.distil``, ``StaticEmbedder``): its files are
the pinned ones, its vectors are deterministic unit vectors, and the build reproduces it from
the shipped model (on a sample of tokens and on the cosine scale: the whole pass takes a minute
or two, ``python -m digest.identity.distil --check``). No service of the machine is needed."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from digest.config import Settings
from digest.errors import EmbeddingFileError
from digest.identity import distil
from digest.identity import table as table_module
from digest.identity.embedding import (
    STATIC_MODEL,
    STATIC_SHA256,
    StaticEmbedder,
    clear_cache,
    get_embedder,
)
from digest.identity.scale import CosineScale
from digest.identity.wordpiece import default_tokenizer

PARAPHRASE = (
    "Confirm the order id before calling refund",
    "Verify the order number prior to issuing a refund",
)
UNRELATED = "Paint the fence green before winter"


@pytest.fixture(autouse=True)
def empty_vector_cache() -> Iterator[None]:
    clear_cache()
    yield
    clear_cache()


@pytest.fixture(scope="module")
def static() -> StaticEmbedder:
    embedder = StaticEmbedder()
    embedder.embed(["load the table"])
    return embedder


@pytest.fixture(scope="module")
def table() -> table_module.Table:
    where = table_module.static_dir()
    return table_module.Table(
        *[np.load(where / name, allow_pickle=False) for name in table_module.FILES]
    )


def test_the_table_files_are_the_pinned_ones() -> None:
    assert set(STATIC_SHA256) == set(table_module.FILES)
    for name in table_module.FILES:
        raw = (table_module.static_dir() / name).read_bytes()
        assert hashlib.sha256(raw).hexdigest() == STATIC_SHA256[name], name
    size = sum((table_module.static_dir() / name).stat().st_size for name in table_module.FILES)
    assert size < 5_000_000  # a few MB in the repository


def test_the_table_has_a_row_and_a_weight_per_token(table: table_module.Table) -> None:
    vocabulary = len(default_tokenizer().vocab)
    assert table.rows.shape == (vocabulary, distil.DIMENSIONS) and table.rows.dtype == np.int8
    assert table.weights.shape == (vocabulary,) and np.isfinite(table.weights).all()
    assert (table.weights > 0).all()
    zero, one = table.scale
    assert 0 < zero < one <= 1


def test_static_is_the_default_and_named_by_its_table() -> None:
    assert Settings.model_fields["embedding_model"].default == "static"
    default = get_embedder(Settings(embedding_model="static"))
    assert isinstance(default, StaticEmbedder) and default.name == STATIC_MODEL
    assert get_embedder(Settings(embedding_model=STATIC_MODEL)) is default


def test_static_vectors_are_unit_float32_and_deterministic(static: StaticEmbedder) -> None:
    texts = [*PARAPHRASE, UNRELATED, "x" * 300, "Ünïcödé  tëxt, with — punctuation!"]
    first = static.embed(texts)
    again = StaticEmbedder().embed(list(reversed(texts)))[::-1]  # a new table, another order
    alone = [static.embed([text])[0] for text in texts]
    for vector, other, single in zip(first, again, alone, strict=True):
        assert vector.dtype == np.float32 and vector.shape == (distil.DIMENSIONS,)
        assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
        assert vector.tobytes() == other.tobytes() == single.tobytes()


def test_a_paraphrase_is_closer_than_an_unrelated_sentence(static: StaticEmbedder) -> None:
    a, b, c = static.embed([*PARAPHRASE, UNRELATED])
    scale = static.cosine_scale
    assert isinstance(scale, CosineScale)
    assert float(a @ b) > scale.one - 0.1 > scale.zero > float(a @ c)


def test_a_text_without_tokens_has_the_zero_vector(static: StaticEmbedder) -> None:
    (vector,) = static.embed(["  \t "])
    assert vector.shape == (distil.DIMENSIONS,) and not vector.any()


def test_a_table_that_is_not_the_pinned_one_is_refused(tmp_path: Path) -> None:
    for name in table_module.FILES:
        shutil.copy(table_module.static_dir() / name, tmp_path / name)
    raw = bytearray((tmp_path / "rows.npy").read_bytes())
    raw[-1] ^= 1
    (tmp_path / "rows.npy").write_bytes(bytes(raw))
    with pytest.raises(EmbeddingFileError, match="static embedding table"):
        StaticEmbedder(directory=tmp_path).embed(["refund"])


def test_the_static_model_loads_no_onnxruntime() -> None:
    code = (
        "import sys\n"
        "from digest.config import Settings\n"
        "from digest.identity.embedding import get_embedder\n"
        "get_embedder(Settings(embedding_model='static')).embed(['refund the order'])\n"
        "print('onnxruntime' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- the build reproduces the table ----------------------------------------------------------


def test_the_build_reproduces_rows_and_weights_of_sampled_tokens(table: table_module.Table) -> None:
    vocabulary = sorted(default_tokenizer().vocab, key=default_tokenizer().vocab.__getitem__)
    # every 97th token: special, unused, characters, whole words and ## pieces alike
    ids = list(range(0, len(vocabulary), 97))
    rows, row_scale = distil.quantise(distil.project(distil.token_outputs(ids), table.projection))
    # int8 rounding of a float computed on another CPU may land one step away
    assert np.abs(rows.astype(np.int16) - table.rows[ids]).max() <= 1
    assert (rows == table.rows[ids]).mean() > 0.99
    p = distil.zipf_probabilities(vocabulary)[ids]
    weights = distil.SIF_A / (distil.SIF_A + p) * row_scale
    np.testing.assert_allclose(weights, table.weights[ids], rtol=1e-4)


def test_the_build_reproduces_the_cosine_scale(table: table_module.Table) -> None:
    scale = distil._cosine_scale(table, distil._session())
    np.testing.assert_allclose(scale, table.scale, atol=1e-4)
