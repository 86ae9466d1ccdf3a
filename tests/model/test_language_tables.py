"""The offline judge reading owner facts and reversals in languages its tables lacked (issue 24,
DESIGN §8a): the function words of Swedish, Norwegian, Danish, Indonesian, Romanian and
Hungarian questions say nothing about their subject; those languages' words for a concept the
table knows (open, closed, cost, free, delivery, booking, a car for parking) are that concept;
Romanian, Hungarian and Indonesian reversals ("nu mai", "már nem … helyette", "tidak lagi",
"dihentikan") and an Indonesian yes or no are read; "since the new …", "haben wir …
eingestellt", "alleen nog", "agora só" state a change. Look-alikes stay apart: another day,
another field, "nu mai mult de" (no more than), a setting "auf 20 Grad eingestellt"."""

from __future__ import annotations

import json

import pytest

from digest import facts
from digest import fingerprint as fp
from digest.model.offline_reconcile import reconcile
from digest.reversal import answer_polarity, states_reversal
from tests.reflect.helpers import offline_judged, owner_fact

#: one subject asked twice: the second question's other words are function words or the
#: same concept in the language's own word
SAME = [
    (("Har ni hemleverans?", "Ja."), ("Kan jag fortfarande få hemleverans?", "Nej.")),
    (("Har dere åpent i påsken?", "Ja."), ("Er dere åpne i påsken?", "Nei.")),
    (("Har I åbent i påsken?", "Ja."), ("Er I stadig åbne i påsken?", "Nej.")),
    (("Apakah ada wifi?", "Ya, gratis."), ("Apakah wifi masih ada?", "Tidak.")),
    (("Le parking est-il gratuit ?", "Oui."), ("Faut-il payer pour garer la voiture ?", "Oui.")),
    (("Hay que pagar el aparcamiento?", "No."), ("¿Es gratis aparcar el coche?", "Sí.")),
]  # fmt: skip

#: two subjects that read alike: another day, another thing
DISTINCT = [
    (("Har ni öppet på lördagar?", "Ja."), ("Har ni öppet på söndagar?", "Nej.")),
    (("Har dere åpent på lørdager?", "Ja."), ("Har dere åpent på søndager?", "Nei.")),
    (("Apakah ada wifi?", "Ya."), ("Apakah ada parkir?", "Tidak.")),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new"), SAME)
def test_function_and_concept_words_of_more_languages_leave_one_subject(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    assert facts.relation(facts.fact(*new), facts.fact(*old)) is facts.Relation.SAME


@pytest.mark.parametrize(("old", "new"), DISTINCT)
def test_another_day_or_thing_stays_another_subject(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    assert facts.relation(facts.fact(*new), facts.fact(*old)) is facts.Relation.DISTINCT


@pytest.mark.parametrize(
    "text",
    [
        "Eroare: parametrul 'tva' nu mai este suportat; folosiți 'cota_tva'",
        "Câmpul 'judet' a fost eliminat din versiunea 3",
        "Hiba: a 'megye' mező már nem használható, helyette 'regio' kell",
        "A kiszállítás megszűnt januártól.",
        "Fitur ini tidak lagi tersedia.",
        "Layanan antar jemput sudah dihentikan.",
        "Parameter 'kota' diganti dengan 'kode_kota'.",
        "Nein, den Abholservice haben wir eingestellt.",
        "Nee, we accepteren alleen nog pin.",
        "Não, agora só entregamos no centro.",
        "No, since the new owners took over we close at six.",
    ],
)
def test_reversals_in_those_languages_and_verbs_are_read(text: str) -> None:
    assert states_reversal(text)


@pytest.mark.parametrize(
    "text",
    [
        "Nu mai mult de 5 articole pe comandă.",  # no more than 5 items per order
        "Die Heizung haben wir auf 20 Grad eingestellt.",  # a setting, not a service ended
        "Ya, kami buka setiap hari.",
        "Igen, minden nap nyitva vagyunk.",
        "Ya no hay mesas libres hoy.",  # Spanish "ya no": a reversal, never an Indonesian yes
    ],
)
def test_look_alikes_of_those_markers(text: str) -> None:
    if text.startswith("Ya no"):
        assert answer_polarity(text) <= 0
        return
    assert not states_reversal(text)


def test_an_indonesian_answer_opens_with_a_yes_or_a_no() -> None:
    assert answer_polarity("Ya, gratis untuk tamu.") == 1
    assert answer_polarity("Tidak, sudah tidak ada.") == -1
    assert answer_polarity("Bukan, itu toko lain.") == -1
    assert answer_polarity("Yang baru buka jam 9.") == 0


def _tool_lesson(i: int, tool: str, error: str) -> dict[str, object]:
    call = {"tool": tool, "args": {"id": i}, "ok": False, "error": error}
    [key] = fp.event_keys("run_outcome", {"task": "t", "outcome": "failure", "tool_calls": [call]})
    return {"id": i, "situation": f"Calling the `{tool}` tool",
            "mistake": f"Called `{tool}` with «{{\"id\": {i}}}» and it failed: «{error}»",
            "correction": f"Give `{tool}` what it asks for: it fails with «{error}».",
            "tags": [tool, "tool-error"], "fingerprint": key}  # fmt: skip


def _tool_judged(tool: str, old: str, new: str) -> dict[str, object]:
    candidate = _tool_lesson(0, tool, new)
    candidate["candidate"] = candidate.pop("id")
    [op] = json.loads(reconcile([_tool_lesson(3, tool, old)], [candidate]))["operations"]
    return dict(op)


@pytest.mark.parametrize(
    ("tool", "old", "new"),
    [
        ("emite_aviz", "Eroare: câmpul 'cnp' este obligatoriu",
         "Eroare: câmpul 'cnp' nu mai este acceptat; folosiți 'id_client'"),
        ("rendeles_felvetel", "Hiba: a 'megye' mező kötelező",
         "Hiba: a 'megye' mező már nem használható, helyette 'regio' kell"),
        ("buat_pesanan", "Error: parameter 'kota' wajib diisi",
         "Error: parameter 'kota' tidak lagi didukung, sebagai gantinya kirim 'kode_kota'"),
    ],
)  # fmt: skip
def test_a_tool_reversal_in_those_languages_supersedes(tool: str, old: str, new: str) -> None:
    op = _tool_judged(tool, old, new)
    assert (op["op"], op.get("id")) == ("DELETE", 3), op


def test_a_romanian_reversal_of_another_field_supersedes_nothing() -> None:
    op = _tool_judged(
        "emite_aviz", "Eroare: câmpul 'cnp' este obligatoriu",
        "Eroare: câmpul 'telefon' nu mai este acceptat; folosiți 'email'",
    )  # fmt: skip
    assert op["op"] != "DELETE", op


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (("Apakah ada wifi gratis?", "Ya, untuk semua tamu."),
         ("Apakah wifi masih gratis?", "Tidak lagi, sekarang wifi berbayar.")),
        (("Har ni hemleverans?", "Ja, gratis över 300 kronor."),
         ("Kan jag fortfarande få hemleverans?", "Nej, vi har slutat med hemleverans.")),
        (("Le parking est-il gratuit ?", "Oui, pour les clients."),
         ("Faut-il payer pour garer la voiture ?", "Oui, désormais 3 euros la journée.")),
    ],
)  # fmt: skip
def test_an_owner_reversal_in_those_words_supersedes(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    op = offline_judged([owner_fact(4, *old)], *new)
    assert (op["op"], op.get("id")) == ("DELETE", 4), op


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (("Har ni öppet på lördagar?", "Ja, 10-14."),
         ("Har ni öppet på söndagar?", "Nej, inte längre.")),
        (("Har dere åpent på lørdager?", "Ja, 10-14."),
         ("Har dere åpent på søndager?", "Nei, ikke lenger.")),
        (("Apakah ada wifi?", "Ya."), ("Apakah ada parkir?", "Tidak lagi, parkir sudah ditutup.")),
    ],
)  # fmt: skip
def test_an_owner_change_about_another_day_or_thing_is_added(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    op = offline_judged([owner_fact(4, *old)], *new)
    assert op["op"] == "ADD", op
