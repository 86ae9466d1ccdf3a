"""Values kept for a session's current transaction (``digest.lessons.per_transaction``)."""

from __future__ import annotations

from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session

from digest.lessons.per_transaction import drop, for_transaction, keep, kept


def test_a_value_lasts_as_long_as_its_transaction() -> None:
    engine = create_engine("sqlite://")
    with Session(engine) as session:
        session.execute(text("SELECT 1"))  # a transaction begins
        first = for_transaction(session, "k", set)
        first.add(1)
        assert for_transaction(session, "k", set) is first
        assert kept(session, "k") == {1}
        session.commit()
        # the next transaction makes its own; the ended one's is not returned
        assert kept(session, "k") is None
        session.execute(text("SELECT 1"))
        assert kept(session, "k") is None
        second = for_transaction(session, "k", set)
        assert second == set() and second is not first
        session.rollback()
        assert kept(session, "k") is None


def test_keep_replaces_and_drop_forgets_whichever_transaction_kept() -> None:
    engine = create_engine("sqlite://")
    with Session(engine) as session:
        session.execute(text("SELECT 1"))
        keep(session, "k", [1])
        assert keep(session, "k", [2]) == [2]
        assert kept(session, "k") == [2]
        session.commit()
        # kept by a transaction that ended: no longer the current one's, still dropped
        assert kept(session, "k") is None
        assert drop(session, "k") == [2]
        assert drop(session, "k") is None
        assert "k" not in session.info
