"""digest.redact over a table of every kind of secret capture masks, and of look-alikes that must
stay: each secret is gone, the shape a reader learns from stays, a second pass changes nothing;
ids, hashes, UUIDs and errors *about* credentials are left exactly as they were.

The secrets are made up, and written in two pieces so no scanner takes this file for a leak.
"""

from __future__ import annotations

from typing import Any

import pytest

from digest.redact import MASK, redact, redact_value, secret_named

AWS_ID = "AKIA" + "Q2W3E4R5T6Y7U8I9"
AWS_SESSION_ID = "ASIA" + "Z9X8C7V6B5N4M3L2"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
GH = "aBcDeFgHiJkLmNoPqRsTuVwXyZ" + "0123456789"  # 36 characters after the prefix
PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + "BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
AZURE_KEY = "Zm9vYmFyYmF6cXV4" * 5 + "Zm9vYmFyYmF6cQ=="  # 88 characters of base64
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSJ9"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)

# (text, the secret that must be gone, what must remain of its shape)
SECRETS: list[tuple[str, str, str]] = [
    # cloud access keys
    (f"aws_access_key_id={AWS_ID} was denied", AWS_ID[4:], "AKIA***"),
    (f"assumed role with {AWS_SESSION_ID} (expires 12:00)", AWS_SESSION_ID[4:], "ASIA***"),
    (f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}", AWS_SECRET, "AWS_SECRET_ACCESS_KEY=***"),
    (f"aws secret access key: {AWS_SECRET} rejected", AWS_SECRET, "key: ***"),
    (f"[default]\naws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}\n",
     AWS_SECRET, "aws_secret_access_key = ***"),
    (f'{{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n{PEM_BODY}'
     f'\\n-----END PRIVATE KEY-----\\n", "client_email": "bot@p.iam.gserviceaccount.com"}}',
     PEM_BODY, '"client_email": "bot@p.iam.gserviceaccount.com"'),
    ("gcp key AIza" + "SyD-4bX9k2LmN0pQrStUvWxYz1234567890 refused", "SyD-4bX9k2LmN0pQ",
     "AIza***"),
    (f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={AZURE_KEY};"
     "EndpointSuffix=core.windows.net", AZURE_KEY, "AccountName=acme;AccountKey=***;"),
    ("Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManage;"
     "SharedAccessKey=" + "q1W2e3R4t5Y6u7I8o9P0aSdFgHjKl=", "q1W2e3R4t5Y6u7I8",
     "SharedAccessKeyName=RootManage;SharedAccessKey=***"),
    ("GET https://acme.blob.core.windows.net/c/b.csv?sv=2022-11-02&sp=r&se=2030-01-01"
     "&sig=" + "AbCdEf%2BGhIjKlMn%3D 403", "AbCdEf%2BGhIjKlMn", "&sig=*** 403"),
    # code-host and vendor tokens
    (f"token ghp_{GH} lacks scope repo", GH, "ghp_***"),
    (f"oauth gho_{GH}", GH, "gho_***"),
    (f"installation token ghs_{GH} expired", GH, "ghs_***"),
    (f"user-to-server ghu_{GH}", GH, "ghu_***"),
    ("fine-grained github_pat_" + "11ABCDEFG0" + "a1b2c3d4e5_" + GH, GH, "github_pat_***"),
    ("glpat-" + "xY7zQ9wE2rT5uI8oP1aS" + " is revoked", "xY7zQ9wE2rT5uI8oP1aS", "glpat-***"),
    ("slack said invalid_auth for xoxb-" + "1234567890-0987654321-AbCdEfGhIjKl",
     "0987654321-AbCdEfGhIjKl", "xoxb-***"),
    ("xoxp-" + "2222222222-3333333333-abcdefabcdef", "3333333333-abcdef", "xoxp-***"),
    ("stripe: sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc" + " is not valid", "4eC39HqLyjWDarjtT1zdp7dc",
     "sk_live_***"),
    ("restricted rk_live_" + "51H8zUoKz9xYwVuTs7Rq", "51H8zUoKz9xYwVuTs7Rq", "rk_live_***"),
    ("Incorrect API key provided: sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8t",
     "Ab3dEf6hIj9kLm2nOp5qRs8t", "sk-***"),
    ("sk-" + "Zy9xWv8uTs7rQp6oNm5lKj4iHg3f", "Zy9xWv8uTs7rQp6oNm5lKj4iHg3f", "sk-***"),
    ("anthropic 401 for sk-ant-api03-" + "Qw3rTy6uIo9pAs2dFg5hJk8l", "Qw3rTy6uIo9pAs2dFg5hJk8l",
     "sk-ant-***"),
    (f"session cookie held {JWT}", JWT.split(".")[2], "jwt:***"),
    (f"Authorization: Bearer {JWT}", JWT.split(".")[1], "Authorization: Bearer ***"),
    ("Authorization: Bearer " + "opaque-T0ken-abcdef", "opaque-T0ken-abcdef",
     "Authorization: Bearer ***"),
    ("authorization: Basic " + "YWRtaW46cEBzc3cwcmQ=", "YWRtaW46cEBzc3cwcmQ=",
     "authorization: Basic ***"),
    ('request headers {"Authorization": "Bearer ' + 'T0ken-in-json-9f8e7d", "Accept": "*/*"}',
     "T0ken-in-json-9f8e7d", '{"Authorization": "Bearer ***", "Accept": "*/*"}'),
    ("curl -H 'Authorization: token " + "abc123def456ghi' https://api.example/x",
     "abc123def456ghi", "'Authorization: token ***'"),
    ("sent bearer " + "t0k3n.with.dots~and+more", "t0k3n.with.dots", "bearer ***"),
    # fields named like secrets, any value
    ("GET /v1/orders?api_key=" + "plainwords&page=2", "plainwords", "api_key=***&page=2"),
    ("callback?access_token=" + "ya29.a0AfH6SM&state=ok", "ya29.a0AfH6SM",
     "access_token=***&state"),
    ('{"password": "my secret, ' + 'with spaces"}', "with spaces", '{"password": "***"}'),
    ("{'client_secret': 'two " + "words'}", "words", "{'client_secret': '***'}"),
    ('{"pin_password": 98' + '7654, "user": "ann"}', "987654", '"pin_password": ***, "user"'),
    ('escaped {\\"password\\": \\"hun' + 'ter2\\"}', "hunter2", '{\\"password\\": \\"***\\"}'),
    ("db:\n  password: hun" + "ter22\n  host: db", "hunter22", "password: ***\n  host: db"),
    ("X-Api-Key: 8f14e45fceea167a5a36" + "dedd4bea2543", "8f14e45fceea167a", "X-Api-Key: ***"),
    ("PGPASSWORD=p@ss:" + "w0rd psql -h db", "w0rd", "PGPASSWORD=*** psql"),
    ("mysql -u root --password hun" + "ter2 -h db", "hunter2", "--password *** -h db"),
    ("signature=3f786850e387550fdab8" + "36ed7e6dc881de23001b", "36ed7e6dc881de23001b",
     "signature=***"),
    ('{"api_key": "123e4567-e89b-12d3-' + 'a456-426614174000"}', "426614174000",
     '{"api_key": "***"}'),
    ("host=db user=app password=p@ss w" + "0rd#1 dbname=x", "p@ss", "user=app password=***"),
    ("Server=tcp:db,1433;User ID=sa;Password=my p@" + "ss w0rd;Encrypt=True", "ss w0rd",
     "User ID=sa;Password=***;Encrypt=True"),
    # a DSN's userinfo written without a scheme, its password holding '@' and ':'
    ("login failed for admin:p@ss" + "@w0rd:x@db.internal:5432", "w0rd:x", "admin:***@db.internal"),
    ("replica:S3c" + "@ret@localhost refused", "ret", "replica:***@localhost"),
    # package-registry and model-hub tokens
    ("npm ERR! 401 for npm_" + "aB3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7C", "aB3dEf6hIj9kLm2n",
     "npm_***"),
    ("hub refused hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH", "aBcDeFgHiJkLmNoP", "hf_***"),
    # private keys
    (f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----", PEM_BODY,
     "-----PRIVATE KEY ***-----"),
    (f"key:\n-----BEGIN EC PRIVATE KEY-----\n{PEM_BODY}\n-----END EC PRIVATE KEY-----\nnext",
     PEM_BODY, "-----PRIVATE KEY ***-----\nnext"),
    (f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----",
     PEM_BODY, "-----PRIVATE KEY ***-----"),
    (f"-----BEGIN ENCRYPTED PRIVATE KEY-----\n{PEM_BODY}\n-----END ENCRYPTED PRIVATE KEY-----",
     PEM_BODY, "-----PRIVATE KEY ***-----"),
    (f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{PEM_BODY}\n-----END PGP PRIVATE KEY BLOCK-----",
     PEM_BODY, "-----PRIVATE KEY ***-----"),
    (f"cut off: -----BEGIN PRIVATE KEY-----\n{PEM_BODY}\n{PEM_BODY[::-1]}", PEM_BODY[::-1],
     "cut off: -----PRIVATE KEY ***-----"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "secret", "shape"), SECRETS)
def test_each_kind_of_secret_is_masked_and_its_shape_kept(
    text: str, secret: str, shape: str
) -> None:
    masked = redact(text)
    assert secret not in masked
    assert shape in masked
    assert redact(masked) == masked  # idempotent


# --- passwords in URLs and connection strings, whatever they hold ------------------------------

PASSWORDS = [
    "p@ss@w0rd", "pa:ss:wd", "pa/ss/wd", "pa#ss#wd", "pa%40ss%2Fwd", "p@:/#%?x!", "@", "::",
    "p@ss:w/rd#1%2F@",
]  # fmt: skip
URLS = [
    ("postgresql://app:{pw}@db.internal:5432/app", "postgresql://app:***@db.internal:5432/app"),
    ("mysql://root:{pw}@mysql:3306/shop", "mysql://root:***@mysql:3306/shop"),
    ("mongodb+srv://svc:{pw}@cluster0.ab12c.mongodb.net/db?retryWrites=true",
     "mongodb+srv://svc:***@cluster0.ab12c.mongodb.net/db?retryWrites=true"),
    ("redis://:{pw}@cache:6379/0", "redis://:***@cache:6379/0"),
    ("redis://default:{pw}@cache:6379", "redis://default:***@cache:6379"),
    ("amqp://guest:{pw}@rabbit:5672/vhost", "amqp://guest:***@rabbit:5672/vhost"),
    ("mongodb://u:{pw}@h1:27017,h2:27017/db?replicaSet=rs0",
     "mongodb://u:***@h1:27017,h2:27017/db?replicaSet=rs0"),
]  # fmt: skip


@pytest.mark.parametrize("password", PASSWORDS)
@pytest.mark.parametrize(("template", "expected"), URLS)
def test_a_url_password_is_masked_whole_up_to_the_last_at(
    template: str, expected: str, password: str
) -> None:
    url = template.format(pw=password)
    for text, want in [
        (url, expected),
        (f"could not connect to {url}: timeout", f"could not connect to {expected}: timeout"),
        (f'{{"url": "{url}", "n": 1}}', f'{{"url": "{expected}", "n": 1}}'),
    ]:
        assert redact(text) == want
        assert redact(want) == want


def test_the_lesson_side_example_of_the_issue_keeps_nothing_of_the_password() -> None:
    masked = redact("sqlalchemy: postgresql://admin:p@ssw0rd@host/db refused")
    assert masked == "sqlalchemy: postgresql://admin:***@host/db refused"


# --- look-alikes that must stay exactly as they are -------------------------------------------

KEPT = [
    "401 Unauthorized: missing Authorization header",
    "the Authorization header is deprecated in favour of X-Api-Key",
    'WWW-Authenticate: Bearer realm="api", error="invalid_token"',
    "Bearer authentication is required for /v2",
    "consultar_cep authenticates with an Authorization: Bearer header",
    "send Authorization: Bearer <token> or Authorization: Basic ${CREDENTIALS}",
    "403 Forbidden: token expired, sign in again",
    "Invalid token: expected 3 segments",
    "password must be at least 12 characters and hold a digit",
    "password: at least 8 characters",
    "fatal: reference is not a tree: 3f786850e387550fdab836ed7e6dc881de23001b",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (HEAD -> main)",
    "order 123e4567-e89b-12d3-a456-426614174000 not found",
    "refund for ORD-2024-118233 and #A1B2C3D4E5 failed",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 mismatch",
    "upload iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk.png rejected",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ is too large",
    "max_tokens=4096 exceeded; prompt_tokens=5000",
    "idempotency_key=run-42 seen before; cache_key=user:42",
    "http://localhost:8080/users/bob@example.com returned 404",
    "jdbc:postgresql://db:5432/app?user=app&ssl=true",
    "git@github.com:acme/app.git: permission denied (publickey)",
    "Write to support@shop.example; see https://help.shop.example/returns?lang=en",
    "The sk-learn-compatible-estimator failed; task-force desk-1182",
    "AKIA is the prefix of an access key id",
    "if token == None: raise",
    '{"args": {"legacy_auth": true, "api_key": null}}',
    "private_key_id 0123456789abcdef0123456789abcdef01234567 rotated",
    "Ask for the order number; 注文番号を確認してください。",
    "",
]


@pytest.mark.parametrize("text", KEPT)
def test_look_alikes_stay_as_they_are(text: str) -> None:
    assert redact(text) == text


# --- structures --------------------------------------------------------------------------------


def test_a_field_named_like_a_secret_is_masked_whatever_it_holds() -> None:
    sha = "3f786850e387550fdab836ed7e6dc881de23001b"
    args: dict[str, Any] = {
        "password": 123456, "api_key": None, "requires_auth": True, "token_count": 12,
        "headers": {"Authorization": "Bearer abc", "X-Api-Key": ["k1", "k2"]},
        "commit": sha, "signature": sha, "order_id": "123e4567-e89b-12d3-a456-426614174000",
        "note": f"with postgresql://a:b@c@db/x and {sha}",
    }  # fmt: skip
    masked = redact_value(args)
    assert masked == {
        "password": MASK, "api_key": None, "requires_auth": True, "token_count": 12,
        "headers": {"Authorization": f"Bearer {MASK}", "X-Api-Key": MASK},
        "commit": sha, "signature": MASK, "order_id": "123e4567-e89b-12d3-a456-426614174000",
        "note": f"with postgresql://a:{MASK}@db/x and {sha}",
    }  # fmt: skip
    assert redact_value(masked) == masked
    assert args["password"] == 123456  # the caller's value is not changed in place


def test_a_value_without_any_sign_of_a_secret_is_returned_as_it_is() -> None:
    event = {"task": "refund order 1182", "tool_calls": [{"tool": "refund", "args": {"n": 1}}]}
    assert redact_value(event) is event


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("password", True), ("DB_PASSWORD", True), ("PGPASSWORD", True), ("clientSecret", True),
        ("x-api-key", True), ("AccountKey", True), ("SharedAccessKey", True), ("sig", True),
        ("access_token", True), ("Proxy-Authorization", True), ("db_pass", True),
        ("credentials", True), ("private_key", True),
        ("prompt_tokens", False), ("token_count", False), ("password_hint", False),
        ("idempotency_key", False), ("private_key_id", False), ("bypass", False),
        ("compass", False), ("order_id", False), ("author", False), ("keyboard", False),
    ],
)  # fmt: skip
def test_secret_named_reads_the_last_word_of_a_name(name: str, secret: bool) -> None:
    assert secret_named(name) is secret
