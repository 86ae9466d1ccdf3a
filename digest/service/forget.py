"""HTTP for forgetting a person (issue 29 point 2): ``POST /v1/forget`` with an owner key and
``{"contact_id": …}`` or ``{"event_id": …}`` (and optionally ``"by"``) runs ``digest.forget``
on the key's tenant and answers 200 with what was erased per table (``nothing`` true when
there was nothing). An agent key is 403; both or neither of the two fields is 422.
"""

# no `from __future__ import annotations`: FastAPI reads the route's annotations, which name
# the app's key dependency given to `routes`

from typing import Annotated, Any

from fastapi import HTTPException
from pydantic import BaseModel, Field, model_validator
from starlette.concurrency import run_in_threadpool

from digest.apikeys import KeyHolder
from digest.forget import forget


class ForgetBody(BaseModel):
    contact_id: str | None = Field(default=None, min_length=1, max_length=200)
    event_id: int | None = Field(default=None, ge=1, le=2**63 - 1)
    by: str | None = Field(default=None, min_length=1, max_length=200)

    @model_validator(mode="after")
    def _one_subject(self) -> "ForgetBody":
        if (self.contact_id is None) == (self.event_id is None):
            raise ValueError("give exactly one of contact_id and event_id")
        return self


class ForgetOut(BaseModel):
    kind: str = Field(description="contact or event")
    subject_hash: str = Field(description="sha256 of `<kind>:<id>`, as the audit row keeps it.")
    nothing: bool = Field(description="True when nothing of it was stored.")
    counts: dict[str, int] = Field(description="Rows erased or rewritten, per table.")
    retired_lessons: list[int]
    recounted_lessons: list[int]
    composed_versions: list[int]
    audit_id: int | None
    exports: str


def routes(holder_dependency: Any) -> list[tuple[str, str, Any]]:
    """(method, path, endpoint) of the forget route, with the app's key dependency."""
    Holder = Annotated[KeyHolder, holder_dependency]

    async def post_forget(body: ForgetBody, holder: Holder) -> ForgetOut:
        """Erase a contact's events (or one event) and everything derived from them; only a
        hashed audit row is kept (`digest forget`)."""
        if holder.kind != "owner":
            raise HTTPException(403, "forgetting takes an owner key")
        done = await run_in_threadpool(
            forget, holder.tenant, contact=body.contact_id, event_id=body.event_id, by=body.by
        )
        return ForgetOut.model_validate(done.to_json())

    return [("POST", "/v1/forget", post_forget)]
