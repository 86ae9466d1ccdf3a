"""Errors in the shapes of other tool-using agents (issue 24 point 4): shells, SQL, gRPC, HTTP
problem bodies over several lines, GraphQL, browsers, logs with ids, stack traces. What the
error says is read out of its shape, what varies between occurrences is masked, what tells two
families apart is kept, and each family is answered with its own remedy."""

from __future__ import annotations

import json

import pytest

from digest.masking import error_template, telling_line
from digest.model.error_families import family_of
from digest.model.error_statement import statement
from digest.model.transient import transient

#: an error as a tool wrote it → the line that says what went wrong
TOLD = [
    (
        "HTTP 422 Unprocessable Entity\nContent-Type: application/problem+json\n"
        '{"title": "Invalid", "invalid-params": [{"name": "start_date", "reason": "too early"}]}',
        'HTTP 422 Unprocessable Entity: {"title": "Invalid", "invalid-params": [{"name": '
        '"start_date", "reason": "too early"}]}',
    ),
    (
        '{\n  "error": {\n    "message": "Quota gone"\n  }\n}',
        '{ "error": { "message": "Quota gone" } }',
    ),
    (
        "[2026-11-02T10:22:13.114Z] ERROR reserve trace=4bf92f35 request_id=req_Lk82: event "
        "evt_1 is sold out",
        "event evt_1 is sold out",
    ),
    (
        "npm ERR! code ENOENT\nnpm ERR! syscall open\nnpm ERR! enoent ENOENT: no such file or "
        "directory, open '/w/app/package.json'",
        "enoent ENOENT: no such file or directory, open '/w/app/package.json'",
    ),
    (
        "Error: locator.click: Timeout 30000ms exceeded.\nCall log:\n  - waiting for "
        "locator('#go')\n  - locator resolved to 0 elements",
        "Error: locator.click: Timeout 30000ms exceeded: locator resolved to 0 elements",
    ),
    (
        'rpc error: code = NotFound desc = warehouse "wh-4" not found',
        'NotFound: warehouse "wh-4" not found',
    ),
    (  # an AWS SDK's frame: the service's error code labels its message
        "botocore.errorfactory.MessageRejected: An error occurred (MessageRejected) when "
        "calling the SendEmail operation: Address blacklisted: a@b.dk is on the suppression list",
        "MessageRejected: Address blacklisted: a@b.dk is on the suppression list",
    ),
    (
        "ClientError: An error occurred (SlowDown) when calling the PutObject operation "
        "(reached max retries: 4): Please reduce your request rate.",
        "SlowDown: Please reduce your request rate.",
    ),
    (
        "Email address is not verified. (Service: AmazonSimpleEmailService; Status Code: 400; "
        "Error Code: MessageRejected; Request ID: 1b2c-33; Proxy: null)",
        "MessageRejected: Email address is not verified.",
    ),
    (
        "com.amazonaws.services.sqs.model.QueueDoesNotExistException: The specified queue does "
        "not exist. (Service: AmazonSQS; Status Code: 400; Error Code: QueueDoesNotExist; "
        "Request ID: 9f)",
        "QueueDoesNotExistException: The specified queue does not exist.",
    ),
    (
        "com.acme.bank.core.AccountFrozenException: Account 44-2 is frozen\n"
        "\tat com.acme.X.y(X.java:2)",
        "AccountFrozenException: Account 44-2 is frozen",
    ),
    (
        "org.x.DataIntegrityViolationException: could not execute statement\n\tat a.B.c(B.java:1)"
        '\nCaused by: org.postgresql.util.PSQLException: ERROR: duplicate key "u_email_key"'
        "\n\tat d.E.f(E.java:9)",
        'PSQLException: ERROR: duplicate key "u_email_key"',
    ),
    (
        'Traceback (most recent call last):\n  File "a.py", line 2, in <module>\n    x()\n'
        "KeyError: 'tax_id'\n\n(exit code 1)",
        "KeyError: 'tax_id'",
    ),
    (  # a code runner's own words before the traceback, a bare Exception, and its message
        # on the lines below: the status and the message tell the error, not the frame
        'Execution failed. Traceback:\n  File "<input>", line 4, in <module>\n'
        "    apis.shop.place_order(cart_id=9)\nException: Response status code is 409:\n"
        '{"message": "The cart is already checked out."}',
        'Exception: Response status code is 409: {"message": "The cart is already checked out."}',
    ),
    (  # an exception line that says it all is read alone
        'Traceback (most recent call last):\n  File "job.py", line 8, in run\n    go()\n'
        "RuntimeError: the lock is held by another job",
        "RuntimeError: the lock is held by another job",
    ),
]


@pytest.mark.parametrize(("error", "told"), TOLD, ids=[t[1][:30] for t in TOLD])
def test_the_telling_line_is_read_out_of_its_shape(error: str, told: str) -> None:
    assert telling_line(error) == told


def test_one_family_with_other_ids_paths_and_timestamps_keeps_one_template() -> None:
    def log(at: str, trace: str, event: str) -> str:
        ids = f"trace={trace} request_id=req_{trace[:5]}"
        return f"[{at}] ERROR reserve {ids}: event {event} is sold out"

    one = log("2026-11-02T10:22:13.114Z", "4bf92f3577b34da6a3ce929d0e0e4736", "evt_8HzQ21")
    two = log("2026-11-05T12:00:31.640Z", "b7e1d2c3b4a5968778000f067aa0ba9", "evt_2Ab771")
    assert error_template(one) == error_template(two)
    assert error_template("bash: line 1: jq: command not found") == error_template(
        "bash: line 7: yq: command not found"
    )


def test_what_tells_two_families_of_one_tool_apart_is_kept() -> None:
    def unique(constraint: str, value: str) -> str:
        return (
            f'ERROR:  duplicate key value violates unique constraint "{constraint}"\n'
            f"DETAIL:  Key (x)=({value}) already exists."
        )

    assert error_template(unique("customers_email_key", "a@x.org")) == error_template(
        unique("customers_email_key", "b@y.org")
    )
    assert error_template(unique("customers_email_key", "a@x.org")) != error_template(
        unique("products_sku_key", "LMP-330")
    )

    def problem(name: str, reason: str) -> str:
        body = {"title": "Invalid", "invalid-params": [{"name": name, "reason": reason}]}
        return f"HTTP 422 Unprocessable Entity\nContent-Type: application/json\n{json.dumps(body)}"

    assert error_template(problem("start_date", "must be a future date")) != error_template(
        problem("plan", "unknown plan code")
    )

    def user_errors(message: str) -> str:
        item = {"field": ["code"], "message": message, "code": "X"}
        return json.dumps({"data": {"cartDiscountCodesUpdate": {"userErrors": [item]}}})

    assert error_template(user_errors("Code A expired")) != error_template(
        user_errors("Code A requires a minimum subtotal")
    )


#: an error → what it says
SAID = [
    (
        json.dumps(
            {"data": {"apply": {"userErrors": [{"field": ["code"], "message": "Code expired"}]}}}
        ),
        "Code expired",
    ),
    (
        json.dumps(
            {
                "detail": "1 invalid parameter",
                "invalid-params": [{"name": "start_date", "reason": "must be a future date"}],
            }
        ),
        "start_date: must be a future date",
    ),
    (
        json.dumps({"error": "", "response": json.dumps({"message": "You are not subscribed"})}),
        "You are not subscribed",
    ),
    (
        # a tool's result in the Model Context Protocol's shape
        json.dumps(
            {"isError": True, "content": [{"type": "text", "text": "Repo acme/x not found"}]}
        ),
        "Repo acme/x not found",
    ),
]


@pytest.mark.parametrize(("error", "said"), SAID, ids=[s[1][:30] for s in SAID])
def test_what_a_body_says_is_found_inside_what_wraps_it(error: str, said: str) -> None:
    assert statement(error) == said


#: an error → its family: each answered with its own remedy, not "look up the id"
FAMILIES = [
    ("FileNotFoundError: [Errno 2] No such file or directory: 'sales.csv'", "missing-file"),
    ("File /data/q3.csv not found", "missing-file"),
    ('{"ok": false, "error": "file_not_found"}', "not-found"),
    ("ModuleNotFoundError: No module named 'polars'", "missing-dependency"),
    ("bash: line 1: jq: command not found", "missing-dependency"),
    (
        'ERROR:  insert or update on table "orders" violates foreign key constraint "o_fkey"',
        "missing-reference",
    ),
    ('ERROR:  column "created" does not exist', "unknown-name"),
    # a quoted snake_case name reads as words ("jezyk ojczysty"): still one quoted name
    ('Property "jezyk_ojczysty" does not exist', "unknown-name"),
    ("The field 'first name' does not exist", "unknown-name"),
    ('Order "AB 12" does not exist', "not-found"),
    ("User mia_li_9 has no membership for free", "missing-prerequisite"),
    ('Value "ALAND" does not exist in "CountryCode" enum', "out-of-range"),
    (
        "Element is not clickable at point (412, 88). Other element would receive the click",
        "element-covered",
    ),
    ("strict mode violation: locator('input') resolved to 3 elements", "element-ambiguous"),
    ("locator.click: Timeout 30000ms exceeded: locator resolved to 0 elements", "element-missing"),
    ("sale for event evt_9 has not started; on sale from 2026-11-10", "not-open-yet"),
    (
        "HTTP 429: monthly quota of 100000 requests exhausted; quota resets on 2026-12-01",
        "quota-exhausted",
    ),
    ("available balance 120.44 EUR is less than requested 300.00 EUR", "insufficient-funds"),
    ("Discount code W50 requires a minimum subtotal of 100.00 EUR", "below-minimum"),
    ("start_date: must be today or a future date", "too-late"),
    ("Erro: o lugar 14C já está ocupado no voo TP1352", "unavailable-date"),
    (
        "Error: page requires login: redirected to https://x.example/login?next=%2F",
        "authentication",
    ),
]


@pytest.mark.parametrize(("error", "family"), FAMILIES, ids=[f[0][:40] for f in FAMILIES])
def test_each_shape_is_read_for_its_family(error: str, family: str) -> None:
    assert family_of(error).name == family


@pytest.mark.parametrize(
    ("error", "passes"),
    [
        ("HTTP 429 Too Many Requests: rate limit of 10 requests per second exceeded", True),
        ('{"errors": [{"message": "Throttled", "extensions": {"code": "THROTTLED"}}]}', True),
        ("Error: page.goto: net::ERR_CONNECTION_TIMED_OUT at https://news.example/", True),
        ('{"error": "Service is busy, please try again later."}', True),
        ("HTTP 429: monthly quota of 100000 requests exhausted; quota resets on 2026-12-01", False),
        ("You exceeded your current quota, please check your plan and billing details", False),
        (
            "Error: locator.click: Timeout 30000ms exceeded.\nCall log:\n  - waiting for "
            "locator('#go')\n  - locator resolved to 0 elements",
            False,
        ),
    ],
)
def test_a_retry_fixes_a_rate_limit_not_a_quota_or_a_missing_element(
    error: str, passes: bool
) -> None:
    assert transient(error) is passes


def test_a_tools_progress_line_is_not_what_failed() -> None:
    """A first line that says nothing went wrong ("Performing Streamed Install", "Starting:
    Intent {…}") is the tool's progress: two errors of one tool would share it, so the line
    that failed tells (of four words or more when there is one)."""
    install = "Performing Streamed Install\nadb: failed to install a.apk: Failure [{}]"
    full, exists = (
        telling_line(install.format(c)) for c in ("INSTALL_FAILED_INSUFFICIENT_STORAGE", "X")
    )
    assert full.startswith("adb: failed to install") and full != exists
    started = "Starting: Intent { cmp=a/.B }\nError type 3\nError: Activity class {a/.B} missing."
    assert telling_line(started) == "Error: Activity class {a/.B} missing."
    assert telling_line("Payment declined\nPlease retry later") == "Payment declined"


def test_two_errors_one_code_runner_raises_have_two_templates() -> None:
    def runner(line: str, status: int, message: str) -> str:
        return (
            f'Execution failed. Traceback:\n  File "<input>", line 1, in <module>\n    {line}\n'
            f'Exception: Response status code is {status}:\n{{"message": "{message}"}}'
        )

    shares = runner("apis.pay.split(amount=90)", 422, "The shares (80.00) do not add up (90.00).")
    again = runner("apis.pay.split(amount=12)", 422, "The shares (10.00) do not add up (12.00).")
    exists = runner("apis.files.mkdir(path='~/a')", 409, "A directory already exists at ~/a.")
    assert error_template(shares) == error_template(again)
    assert error_template(shares) != error_template(exists)
