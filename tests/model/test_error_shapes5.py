"""Errors in more shapes of tool-using agents (issue 24 point 4): a coding agent's editor and
shell, a browser agent's action strings, a notebook kernel's error output, MCP results,
Terraform's box-drawn diagnostics, PowerShell error records, an HTTP client's repr, Go structs,
Python-literal bodies. What the error says is read out of its shape; what the call passed and
the error names back is the instance; each family is answered with the remedy for the
precondition it states, and a precondition stated on another line still counts."""

from __future__ import annotations

import json

import pytest

from digest.fingerprint import call_error, named_back, run_failures, tool_key
from digest.masking import error_template, telling_line
from digest.model.error_families import family_of
from digest.model.error_reading import family_in, passed_family
from digest.model.error_statement import statement
from digest.model.offline_reflect import judge_event
from digest.model.transient import transient

#: an error as a tool wrote it → the line that says what went wrong
TOLD = [
    (  # a terminal's colour codes are no text
        "\x1b[0;31mKeyError\x1b[0m: 'revenue'",
        "KeyError: 'revenue'",
    ),
    (  # a box-drawn diagnostic: its frame is no text
        "╷\n│ Error: No value for required variable\n│ \n│   on variables.tf line 3:\n╵",
        "Error: No value for required variable",
    ),
    (  # a labelled line that ends with a colon, the body after it
        'Exception: Response status code is 422:\n{"message": "The song is already in it."}',
        'Exception: Response status code is 422: {"message": "The song is already in it."}',
    ),
    (  # an HTTP client's repr: its status and the message it returned
        '<HttpError 400 when requesting https://x.example/v3/a?alt=json returned "Unable to '
        "parse range: Week 15!B2\". Details: \"[{'message': 'x'}]\">",
        "HTTP 400: Unable to parse range: Week 15!B2",
    ),
    (  # a PowerShell error record: its message and the id of its kind
        "Remove-Item : Cannot find path 'D:\\logs\\b-1' because it does not exist.\nAt line:1 "
        "char:1\n+ Remove-Item D:\\logs\\b-1\n+ ~~~~\n    + CategoryInfo          : "
        "ObjectNotFound: (D:\\logs\\b-1:String) [Remove-Item], ItemNotFoundException\n"
        "    + FullyQualifiedErrorId : PathNotFound,Microsoft.PowerShell.Commands.RemoveItem",
        "Remove-Item : Cannot find path 'D:\\logs\\b-1' because it does not exist. [PathNotFound]",
    ),
]


@pytest.mark.parametrize(("error", "told"), TOLD)
def test_the_telling_line_is_read_out_of_its_shape(error: str, told: str) -> None:
    assert telling_line(error) == told


#: an error as a tool wrote it → what it says
SAID = [
    (  # a Python literal passed on as the response, its field named by its location
        json.dumps(
            {
                "error": "",
                "response": "{'detail': [{'loc': ['query', 'origin'], 'msg': 'field required',"
                " 'type': 'value_error.missing'}]}",
            }
        ),
        "origin: field required",
    ),
    (  # a notebook kernel's error output
        json.dumps(
            {
                "output_type": "error",
                "ename": "KeyError",
                "evalue": "'revenue_usd'",
                "traceback": [],
            }
        ),
        "KeyError: 'revenue_usd'",
    ),
    (  # Go structs after the call that failed: the status and each struct's message
        "failed to create pull request: POST https://api.github.com/repos/a/b/pulls: 422 "
        "Validation Failed [{Resource:PullRequest Field: Code:custom Message:No commits between "
        "main and dev}]",
        "422 Validation Failed: No commits between main and dev",
    ),
    (  # the same inside an MCP tool result
        json.dumps(
            {
                "content": [
                    {
                        "type": "text",
                        "text": "failed to create pull request: POST https://x/pulls: 422 "
                        "Validation Failed [{Resource:PullRequest Field: Code:custom "
                        "Message:A pull request already exists for a:b.}]",
                    }
                ],
                "isError": True,
            }
        ),
        "422 Validation Failed: A pull request already exists for a:b.",
    ),
]


@pytest.mark.parametrize(("error", "said"), SAID)
def test_what_an_error_says_is_read_out_of_its_shape(error: str, said: str) -> None:
    assert statement(error) == said


def test_two_fields_of_a_python_literal_body_are_two_templates() -> None:
    def body(field: str, message: str) -> str:
        detail = f"{{'detail': [{{'loc': ['query', '{field}'], 'msg': '{message}'}}]}}"
        return json.dumps({"error": "", "response": detail})

    assert error_template(body("origin", "field required")) != error_template(
        body("date", "field required")
    )


def test_what_a_call_passed_and_its_error_names_back_is_masked() -> None:
    first = {"args": "pull acme/billing-api:1.4"}
    again = {"args": "pull acme/auth-svc:2.0"}
    denied = "pull access denied for {}, repository does not exist"
    assert "acme/billing-api" not in named_back(denied.format("acme/billing-api"), first)
    a = tool_key("docker", named_back(denied.format("acme/billing-api"), first))
    b = tool_key("docker", named_back(denied.format("acme/auth-svc"), again))
    assert a == b
    # a whole value, unquoted ("Unable to parse range: Week 15!B2:F2")
    range_a = call_error({"args": {"range": "Week 15!B2:F2"}, "error": "Unable to parse range: "
                          "Week 15!B2:F2"})  # fmt: skip
    range_b = call_error({"args": {"range": "Tracker!A:D"}, "error": "Unable to parse range: "
                          "Tracker!A:D"})  # fmt: skip
    assert error_template(range_a) == error_template(range_b)


def test_a_plain_word_of_a_longer_value_stays_in_the_template() -> None:
    # "not" is a word of the code the call passed, and of the error's own message
    call = {"args": {"old_str": "if not objs:\n    return"}, "error": "old_str did not appear"}
    assert call_error(call) == "old_str did not appear"


def test_a_run_with_two_errors_of_one_tool_repeated_with_other_names_keeps_two_keys() -> None:
    def run(image: str, port: int, name: str) -> dict[str, object]:
        return {
            "tool_calls": [
                {
                    "tool": "docker",
                    "args": {"args": f"pull {image}"},
                    "ok": False,
                    "error": f"pull access denied for {image.split(':')[0]}, repository does "
                    "not exist",
                },
                {
                    "tool": "docker",
                    "args": {"args": f"run --name {name} -p {port}:{port} x"},
                    "ok": False,
                    "error": f"Bind for 0.0.0.0:{port} failed: port is already allocated",
                },
            ]
        }

    first = [f.key for f in run_failures(run("acme/a-1:1", 8080, "web-1"))]
    again = [f.key for f in run_failures(run("acme/b-2:3", 5432, "db-2"))]
    assert len(set(first)) == 2
    assert first == again


def test_a_name_in_parentheses_and_a_list_of_numbers_are_the_instance() -> None:
    assert error_template("creating S3 Bucket (acme-logs-prod): exists") == error_template(
        "creating S3 Bucket (acme-logs-dev): exists"
    )
    assert error_template("Multiple occurrences in lines [48, 97, 131].") == error_template(
        "Multiple occurrences in lines [211, 684]."
    )
    # words in parentheses are not a name
    assert "(see docs)" in error_template("order failed (see docs)")


#: what an error says → the family whose remedy answers it
FAMILIES = [
    ("Error: Access denied - path outside allowed directories: /etc/x not in /home/u", "outside-scope"),  # noqa: E501
    ("Sender address rejected: not owned by user bot@x.io", "not-owner"),
    ("ValueError: could not convert string to float: 'n/a'", "unconvertible-value"),
    ("ValueError: time data \"7 Jan\" doesn't match format \"%Y-%m-%d\"", "unconvertible-value"),
    ("No replacement was performed, old_str `x` did not appear verbatim in /a.py.", "text-not-present"),  # noqa: E501
    ("No replacement was performed. Multiple occurrences of old_str `x` in lines [1, 2].", "ambiguous-match"),  # noqa: E501
    ("Error: Locator.fill: Error: Element is not an <input>, <textarea> or <select>", "wrong-element-kind"),  # noqa: E501
    ("Error: Locator.select_option: Error: Element is not a <select> element", "wrong-element-kind"),  # noqa: E501
    ("422 Validation Failed: No commits between main and dev", "nothing-to-apply"),
    ("File C:\\a.ps1 cannot be loaded because running scripts is disabled on this system.", "disabled-by-policy"),  # noqa: E501
    ("helm : The term 'helm' is not recognized as the name of a cmdlet, function", "missing-dependency"),  # noqa: E501
    ("Cannot find path 'C:\\reports\\q3' because it does not exist.", "missing-file"),
    ("ERROR: file or directory not found: tests/test_a.py", "missing-file"),
    ("Error: creating S3 Bucket (b): BucketAlreadyExists: The requested name is not available", "duplicate"),  # noqa: E501
    ("The song with id 4 is already in the playlist with id 9.", "duplicate"),
    ("The playlist with id 9 already has 100 songs, the maximum allowed.", "limit-exceeded"),
    ("Your Venmo balance (52.40) is not enough to make this transaction of 86.00.", "insufficient-funds"),  # noqa: E501
    ("Bind for 0.0.0.0:8080 failed: port is already allocated", "unavailable-date"),
    ("origin: field required", "missing-parameter"),
    ("Error: No value for required variable", "missing-parameter"),
    ("The specified time range is empty.", "out-of-range"),
    ("Unable to parse range: Week 15!B2:F2", "bad-format"),
    ("error: pathspec 'fix/x' did not match any file(s) known to git", "not-found"),
]  # fmt: skip


@pytest.mark.parametrize(("said", "family"), FAMILIES)
def test_each_error_is_answered_by_its_family(said: str, family: str) -> None:
    assert family_of(said).name == family


def test_a_precondition_stated_on_another_line_names_the_family() -> None:
    error = (
        "error: Your local changes to the following files would be overwritten by checkout:\n"
        "\tsrc/a.py\nPlease commit your changes or stash them before you switch branches.\nAborting"
    )
    # the first line ends announcing what follows: it is read with the two lines after it
    assert "commit your changes" in statement(error).lower()
    assert family_in(statement(error), error).name == "prerequisite-step"


def test_a_shell_status_126_is_a_file_that_cannot_be_executed_not_a_permission() -> None:
    error = "bash: ./scripts/deploy.sh: Permission denied\n(exit code 126)"
    assert family_of(statement(error)).name == "permission"
    assert family_in(statement(error), error).name == "not-executable"
    # without the shell's status it is a permission refused
    refused = "open /etc/shadow: Permission denied"
    assert family_in(statement(refused), refused).name == "permission"


def test_a_missing_name_the_call_passed_is_not_a_missing_argument() -> None:
    missing = family_of("KeyError: 'revenue_usd'")
    assert missing.name == "missing-parameter"
    code = {"code": "df.groupby('region')['revenue_usd'].sum()"}
    assert passed_family(missing, "KeyError: 'revenue_usd'", code).name == "unknown-name"
    an_id = {"order_id": "W-1182"}
    assert passed_family(missing, "KeyError: 'W-1182'", an_id).name == "not-found"
    # a tool's own missing key, not passed: a missing argument still
    assert passed_family(missing, "KeyError: 'amount'", {"order_id": "W-1"}) is missing


TRANSIENT = [
    "fatal: unable to access 'https://github.com/a/b.git/': Could not resolve host: github.com",
    "SMTPServerDisconnected: (421, b'4.7.0 Greylisted, please try again in 300 seconds')",
    "RuntimeError: Kernel didn't respond in 60 seconds",
    "Connecting to remote server B-7 failed: WinRM cannot complete the operation. "
    "[WinRMOperationTimeout]",
]


@pytest.mark.parametrize("error", TRANSIENT)
def test_faults_a_retry_fixes_are_transient(error: str) -> None:
    assert transient(error)


def test_a_run_that_failed_three_ways_teaches_each_with_its_remedy() -> None:
    def editor(error: str, old: str) -> dict[str, object]:
        args = {"command": "str_replace", "path": "/t/a.py", "old_str": old}
        return {"tool": "str_replace_editor", "args": args, "ok": False, "error": error}

    payload = {
        "task": "fix the bug",
        "outcome": "failure",
        "tool_calls": [
            {"tool": "str_replace_editor", "args": {"command": "view"}, "ok": True},
            editor(
                "ERROR:\nNo replacement was performed, old_str `a = 1` did not appear "
                "verbatim in /t/a.py.",
                "a = 1",
            ),
            editor(
                "ERROR:\nNo replacement was performed. Multiple occurrences of old_str "
                "`b = 2` in lines [3, 9]. Please ensure it is unique.",
                "b = 2",
            ),
            editor(
                "ERROR:\nInvalid `path` parameter: /t/r.py. File already exists at: /t/r.py."
                " Cannot overwrite files using command `create`.",
                "c",
            ),
        ],
    }
    out = judge_event({"kind": "run_outcome", "payload": payload})
    assert out.count("<lesson>") == 3
    assert "<correction>Match the text exactly to the current content" in out
    assert "<correction>Narrow it to one match" in out
    assert "<correction>Look for an existing record first" in out
    assert "Change the arguments or the approach" not in out


def test_an_error_chain_under_caused_by_is_read_by_its_root_cause() -> None:
    """An error chain listed under "Caused by:" (Rust's anyhow): the first line wraps every
    cause alike ("failed to import <file>"), so two causes are two errors, each read by its
    last numbered cause; repeats with other files and figures share one template."""
    chain = "Error: failed to import {}\n\nCaused by:\n    0: line {}: bad row\n    1: {}"
    late = chain.format("a.csv", 7, "shipment date 2024-06-02 is after the manifest date")
    heavy = chain.format("a.csv", 7, "parcel weight 41.5 kg is over the limit of 30 kg")
    again = chain.format("b.csv", 92, "parcel weight 55.0 kg is over the limit of 30 kg")
    assert telling_line(heavy) == "parcel weight 41.5 kg is over the limit of 30 kg"
    assert tool_key("import", late) != tool_key("import", heavy)
    assert tool_key("import", heavy) == tool_key("import", again)
    # one cause, not numbered
    assert telling_line("Error: sync failed\n\nCaused by:\n    disk quota exceeded") == (
        "disk quota exceeded"
    )


def test_a_first_line_announcing_what_follows_is_read_with_it() -> None:
    """An admission webhook's denial ends its first line with a colon and names the policy
    below it: two policies are two errors, the same policy on other resources one."""
    denial = (
        'Error from server: error when creating "{}": admission webhook "validate.policy.svc"'
        " denied the request: \n\nresource {} was blocked due to the following policies"
        " \n\n{}:\n  rule-x: 'validation error: …'"
    )
    tag = denial.format("a.yaml", "Deployment/shop/api", "disallow-latest-tag")
    registry = denial.format("b.yaml", "StatefulSet/shop/db", "restrict-image-registries")
    again = denial.format("c.yaml", "Deployment/blog/web", "disallow-latest-tag")
    assert tool_key("kubectl", tag) != tool_key("kubectl", registry)
    assert tool_key("kubectl", tag) == tool_key("kubectl", again)


def test_an_sdk_exception_is_read_past_the_request_it_echoes() -> None:
    """An SDK's exception opens with its class and the request it sent ("HTTP Error Your
    request was:", "POST /Accounts/…/Messages.json") before the provider's message: every error
    of the call shares those lines, so the message is what tells two errors apart; the same
    message for another account is one error."""
    sdk = (
        "twilio.base.exceptions.TwilioRestException: \nHTTP Error Your request was:\n\n"
        "POST /Accounts/{}/Messages.json\n\nTwilio returned the following information:\n\n"
        "Unable to create record: {}\n\nMore information may be available here:\n\n"
        "https://www.twilio.com/docs/errors/{}"
    )
    stop = sdk.format("AC5f0e", "Attempt to send to unsubscribed recipient", 21610)
    sender = sdk.format("AC5f0e", "The From phone number +34910557720 is not SMS-capable", 21606)
    again = sdk.format("AC91aa", "Attempt to send to unsubscribed recipient", 21610)
    assert telling_line(stop).endswith("Unable to create record: Attempt to send to unsubscribed"
                                       " recipient")  # fmt: skip
    assert tool_key("send_sms", stop) != tool_key("send_sms", sender)
    assert tool_key("send_sms", stop) == tool_key("send_sms", again)


def test_a_figure_in_chinese_or_japanese_is_masked_alone() -> None:
    """Chinese and Japanese write figures without spaces around them: the figure is the
    instance, the words around it are the error ("订单12345不存在" is "订单<id>不存在", not
    "<id>"; a revision's date leaves "改定により" to be read)."""
    from digest.masking import mask_ids

    assert mask_ids("订单12345不存在") == "订单<id>不存在"
    assert tool_key("withdraw", "订单12345不存在") == tool_key("withdraw", "订单98不存在")
    assert tool_key("withdraw", "订单12345不存在") != tool_key("withdraw", "余额12345不足")
    said = mask_ids("2024年7月1日の改定により、最小出金額は 0.0005 BTC です。")
    assert said.startswith("<id>年<id>月<id>日の改定により")
    assert mask_ids("Order ORD-4412 for bob not found") == "Order <id> for bob not found"
