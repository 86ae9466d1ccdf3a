"""``digest serve``: the HTTP service (``digest.service``) on uvicorn, until stopped."""

from __future__ import annotations

import errno
import socket
from typing import Annotated

import typer

from digest.cli.app import app
from digest.errors import InvalidArgument


def can_listen(host: str, port: int) -> None:
    """``InvalidArgument`` in one sentence when nothing could listen on ``host:port`` (a port in
    use, an address this machine does not have), said before uvicorn starts: its own report
    is several log lines and exit status 3. (Another process may still take the port between
    this look and uvicorn's bind; uvicorn then reports it as before.)"""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise InvalidArgument(
            f"--host {host}: not an address to listen on ({exc.strerror})"
        ) from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise InvalidArgument(
                    f"port {port} on {host} is in use (another `digest serve`?): stop it, or "
                    "choose another with --port"
                ) from None
            raise InvalidArgument(f"cannot listen on {host}:{port}: {exc.strerror}") from None


@app.command("serve")
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            max=64,
            help="Server processes in this container; or run one `digest serve` per "
            "container behind a load balancer.",
        ),
    ] = 1,
    access_log: Annotated[
        bool,
        typer.Option(
            "--access-log/--no-access-log",
            help="Log each request's method, path and status (never its query: a pitfalls "
            "prompt travels in it).",
        ),
    ] = True,
) -> None:
    """Serve the HTTP API (capture, pitfalls, learning, /healthz, /readyz) until stopped.

    Stateless: run as many processes as the load needs, behind any load balancer. Every
    request needs an API key (`digest tenant key create`).
    """
    from digest.extras import require

    require("service", "digest serve")
    import uvicorn

    from digest.service.logs import access_log_config

    can_listen(host, port)
    uvicorn.run(
        "digest.service:create_app", factory=True, host=host, port=port, workers=workers,
        server_header=False, access_log=access_log, log_config=access_log_config(),
    )  # fmt: skip
