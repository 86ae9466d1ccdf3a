"""Issue 26 point 4: ``digest serve`` on a port in use, or on an address this machine does not
have, is one sentence and exit status 2 before uvicorn starts (uvicorn's own report was several
log lines and exit status 3)."""

from __future__ import annotations

import socket

from tests.cli.conftest import one_error_line, run_cli


def test_a_port_in_use_is_one_line(sqlite_env: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        ran = run_cli("serve", "--port", str(port))
    one_error_line(ran, f"port {port} on 127.0.0.1 is in use", "--port")


def test_an_address_not_on_this_machine_is_one_line(sqlite_env: str) -> None:
    ran = run_cli("serve", "--host", "192.0.2.1", "--port", "8000")  # TEST-NET-1: never ours
    one_error_line(ran, "cannot listen on 192.0.2.1:8000")
