"""Error families in the languages the product screens (issue 24 point 4): a tool that answers
in its customer's language names the same failed state, limit or missing input as in English,
and the offline judge answers it with the family's remedy, not the generic one. Pure.

The errors are written for this test, in each language's usual words for the family; none is
taken from the benchmark's cases."""

from __future__ import annotations

import pytest

from digest.model.error_families import family_of

READ = [
    # a limit exceeded
    ("Zending geweigerd: het gewicht overschrijdt de grens van 30 kg", "limit-exceeded"),
    ("Beställningen avvisades: antalet överstiger maxgränsen 12", "limit-exceeded"),
    ("Ordren blev afvist: vægten overstiger grænsen på 20 kg", "limit-exceeded"),
    ("Zamówienie odrzucone: waga przekracza limit 25 kg", "limit-exceeded"),
    ("Objednávka zamítnuta: hmotnost překračuje limit 25 kg", "limit-exceeded"),
    ("Tilaus hylätty: paino ylittää 25 kg rajan", "limit-exceeded"),
    ("Sipariş reddedildi: ağırlık 25 kg sınırını aşıyor", "limit-exceeded"),
    # a minimum not met
    ("Aanmelding geweigerd: de minimumleeftijd is 12 jaar", "below-minimum"),
    ("Anmälan nekad: deltagaren måste vara minst 15 år", "below-minimum"),
    ("Zapis odrzucony: uczestnik musi mieć co najmniej 10 lat", "below-minimum"),
    ("Rezervace zamítnuta: účastník musí mít alespoň 18 let", "below-minimum"),
    ("Ilmoittautuminen hylätty: osallistujan on oltava vähintään 16-vuotias", "below-minimum"),
    ("Matrícula recusada: a idade mínima é 14 anos", "below-minimum"),
    # a state that refuses the call
    ("Boeking geweigerd: de baan is gesloten wegens onderhoud", "status-does-not-allow"),
    ("Bokning nekad: banan är stängd för säsongen", "status-does-not-allow"),
    ("Booking afvist: kontoen er spærret", "status-does-not-allow"),
    ("Rezerwacja odrzucona: konto jest zablokowane", "status-does-not-allow"),
    ("Platba zamítnuta: účet je zablokován", "status-does-not-allow"),
    ("Varaus hylätty: tili on lukittu", "status-does-not-allow"),
    ("Reserva recusada: a conta está suspensa", "status-does-not-allow"),
    # nothing free, nothing left
    ("Reservering mislukt: de cursus is volgeboekt", "unavailable-date"),
    ("Bokning misslyckades: inga lediga platser på turen", "unavailable-date"),
    ("Rezerwacja nieudana: brak wolnych miejsc w terminie", "unavailable-date"),
    ("Reserva recusada: o voo está completo", "unavailable-date"),
    ("Pedido rechazado: no quedan entradas para esa función", "insufficient-amount"),
    ("Bestelling mislukt: er zijn geen kaarten meer", "insufficient-amount"),
    # an input missing
    ("Cadastro recusado: o campo CPF é obrigatório", "missing-parameter"),
    ("Inscription refusée : le numéro de licence est obligatoire", "missing-parameter"),
    ("Registrering nekad: personnummer saknas", "missing-parameter"),
    ("Registrering afvist: CPR-nummer mangler", "missing-parameter"),
    ("Aanvraag geweigerd: het btw-nummer ontbreekt", "missing-parameter"),
    ("Zgłoszenie odrzucone: brakuje numeru PESEL", "missing-parameter"),
    ("Žádost zamítnuta: chybí rodné číslo", "missing-parameter"),
    ("Hakemus hylätty: henkilötunnus puuttuu", "missing-parameter"),
    ("Başvuru reddedildi: vergi numarası zorunlu", "missing-parameter"),
    # a step not done yet
    ("Betaling geweigerd: het account is niet geverifieerd", "prerequisite-step"),
    ("Utbetalning nekad: kontot är inte verifierat", "prerequisite-step"),
    ("Wypłata odrzucona: konto nie jest zweryfikowane", "prerequisite-step"),
    ("Výběr zamítnut: účet není ověřen", "prerequisite-step"),
    # and in English, the same states said another way
    ("Bid rejected: the minimum raise is 50 EUR", "below-minimum"),
    ("Registration refused: the workshop has closed", "status-does-not-allow"),
]


@pytest.mark.parametrize(("error", "family"), READ, ids=[r[0][:40] for r in READ])
def test_a_family_is_read_in_the_customers_language(error: str, family: str) -> None:
    assert family_of(error).name == family


@pytest.mark.parametrize(
    "error",
    [
        # prose that only shares a word with a family's phrasing stays generic
        "The build is volatile: rerun it on node on-prem-3",
        "Deploy step failed on node on-prem-3",
        "The plugin returned an empty response",
    ],
)
def test_english_prose_is_not_read_as_another_languages_family(error: str) -> None:
    assert family_of(error).name not in {
        "unavailable-date", "status-does-not-allow", "insufficient-amount", "below-minimum",
    }  # fmt: skip
