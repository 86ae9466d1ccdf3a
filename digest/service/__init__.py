"""The HTTP service (issue 15): ``create_app()`` builds the ASGI app ``digest serve`` runs.

FastAPI on uvicorn, chosen because pydantic is already this project's validation and settings
library, FastAPI generates the OpenAPI document from the same models the routes answer with,
and it is the ASGI framework most people who will operate or extend this already know.

The app is stateless: beyond the process caches the library already keeps (settings, pooled
connections, agent ids), it holds nothing between requests, so it scales by running more
processes behind any load balancer.
"""

from digest.service.app import create_app

__all__ = ["create_app"]
