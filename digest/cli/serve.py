"""``digest serve``: the HTTP service (``digest.service``) on uvicorn, until stopped."""

from __future__ import annotations

from typing import Annotated

import typer

from digest.cli.app import app


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
    import uvicorn

    from digest.service.logs import access_log_config

    uvicorn.run(
        "digest.service:create_app", factory=True, host=host, port=port, workers=workers,
        server_header=False, access_log=access_log, log_config=access_log_config(),
    )  # fmt: skip
