"""digest.redact: credentials masked wherever they appear in text (error messages, URLs,
headers, JSON), ordinary text left alone, the kind of credential still recognisable."""

from __future__ import annotations

import pytest

from digest.redact import MASK, redact

# --- redact(): a table of inputs --------------------------------------------------------------

SECRETS = {
    "openai": "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8t",
    "openai-legacy": "sk-" + "Zy9xWv8uTs7rQp6oNm5lKj4i",
    "anthropic": "sk-ant-api03-" + "Qw3rTy6uIo9pAs2dFg5hJk8l",
    "aws": "AKIA" + "IOSFODNN7EXAMPLE",
    "github": "ghp_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ012345",
    "bearer": "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    "pg-password": "hunter2-" + "pg-Secret",
    "redis-password": "r3dis-" + "Secret-pw",
}


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        (f"Incorrect API key provided: {SECRETS['openai']}.", SECRETS["openai"]),
        (f"key={SECRETS['openai-legacy']} rejected", SECRETS["openai-legacy"]),
        (f"anthropic said 401 for {SECRETS['anthropic']}", SECRETS["anthropic"]),
        (f"aws_access_key_id {SECRETS['aws']} is not valid", SECRETS["aws"]),
        (f"git clone https://{SECRETS['github']}@github.com/o/r", SECRETS["github"]),
        (f"Authorization: Bearer {SECRETS['bearer']}", SECRETS["bearer"]),
        (f"headers={{'authorization': 'Bearer {SECRETS['bearer']}'}}", SECRETS["bearer"]),
        (
            f"could not connect to postgresql://digest:{SECRETS['pg-password']}@db:5432/digest",
            SECRETS["pg-password"],
        ),
        (
            f"Error 111 connecting to redis://:{SECRETS['redis-password']}@cache:6379/0",
            SECRETS["redis-password"],
        ),
        ('{"api_key": "abc123-very-private", "model": "gpt"}', "abc123-very-private"),
        ("GET https://api.example/v1?token=tok-987654&page=2", "tok-987654"),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEow-very-private\n-----END RSA PRIVATE KEY-----",
            "MIIEow-very-private",
        ),
    ],
)  # fmt: skip
def test_redact_masks_each_kind_of_secret(text: str, gone: str) -> None:
    masked = redact(text)
    assert gone not in masked
    assert "***" in masked
    assert redact(masked) == masked  # idempotent: a masked text stays as it is


@pytest.mark.parametrize(
    "text",
    [
        "Confirm the refund amount before calling the refund tool.",
        "Ask for the order number when it is missing (task-force ticket desk-1182).",
        "Write to support@shop.example; see https://help.shop.example/returns?lang=en",
        "postgresql://postgres@127.0.0.1:5432/digest has no password at all",
        "password: at least 8 characters; the bearer of the parcel signs for it",
        "prompt_tokens=120 completion_tokens=40, the tokens are counted per call",
        "Tracking number ABCDEFGH12345678 and order ORD-2024-118233.",
        "Le client préfère être vouvoyé ; 注文番号を確認してください。",
        "",
    ],
)
def test_redact_leaves_ordinary_text_alone(text: str) -> None:
    assert redact(text) == text


def test_redact_keeps_the_shape_of_what_was_masked() -> None:
    assert redact("postgresql://digest:pw-123@db/x") == "postgresql://digest:***@db/x"
    assert redact("redis://:pw-123@cache:6379/0") == "redis://:***@cache:6379/0"
    assert redact(f"use {SECRETS['anthropic']} now") == "use sk-ant-*** now"
    assert redact("Authorization: Bearer abcdefgh12345678") == "Authorization: Bearer ***"


def test_redact_is_quiet_on_empty_input() -> None:
    assert redact("") == ""
    assert MASK == "***"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("AKIAIOSFODNN7EXAMPLE", "AKIA***"),
        ("github_pat_" + "a" * 30, "github_pat_***"),
        ("xoxb-" + "1" * 20, "xoxb-***"),
        ("password=hunter2&user=bob", "password=***&user=bob"),
        ('{"client_secret": "abc"}', '{"client_secret": "***"}'),
    ],
)
def test_redact_masks_further_shapes(text: str, expected: str) -> None:
    assert redact(text) == expected
