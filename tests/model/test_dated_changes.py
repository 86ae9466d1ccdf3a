"""Two ways an owner (or a tool) says that what held no longer does, without "no longer"
(issue 24, point 2): a change dated by a season or a recent period rather than a month ("since
last spring", "seit diesem Jahr"), and a switch stated as done ("we've gone over to", "siamo
passati a"). Each is a reversal, in the languages the screen reads; an offer to switch, a
season's opening hours and a price "from" a figure are not."""

from __future__ import annotations

import pytest

from digest.reversal import states_reversal


@pytest.mark.parametrize(
    "text",
    [
        "Since last winter the sauna is for members only.",
        "Since this year, bikes must stay in the courtyard.",
        "Seit dem Frühjahr gibt es kein Frühstück im Zimmer.",
        "Seit letztem Monat liefern wir nur innerhalb der Stadt.",
        "Depuis cet été, la terrasse est réservée aux clients de l'hôtel.",
        "Desde el verano cerramos los lunes.",
        "Desde o inverno a piscina fica fechada.",
        "Dall'autunno la colazione si paga a parte.",
        "Sinds dit jaar bezorgen we alleen op werkdagen.",
        "Sedan förra året har vi inga hundar i matsalen.",
        "Siden i sommer har vi kun åbent i weekenden.",
        "Od zeszłego roku nie przyjmujemy czeków.",
        "Kesästä lähtien sauna on vain jäsenille.",
        "We've switched to an online booking form.",
        "They have moved over to a new courier for parcels.",
        "Wir haben auf Vorkasse umgestellt.",
        "On est passé à la réservation en ligne.",
        "Hemos cambiado a un sistema de citas.",
        "Mudámos para um horário de inverno.",
        "Siamo passati alla sola prenotazione online.",
        "We zijn overgegaan op een nieuw kassasysteem.",
        "Vi har övergått till enbart förbokning.",
        "Vi har byttet til et nyt bookingsystem.",
        "Przestawiliśmy się na płatności kartą.",
        "Siirryimme ajanvaraukseen.",
        # a period of the business's own, an event of the place, "nowadays", and the verb
        # between the negation and its "any longer"
        "No, desde este curso la clase de prueba cuesta 10 euros.",
        "Since this season the lifts open at nine.",
        "Yes, since the renovation dogs are welcome in the ground-floor rooms.",
        "Nej, numera måste alla pass bokas i appen.",
        "Nej, MobilePay tager vi ikke imod længere, kun kort.",
        "Vi tar inte emot kontanter längre.",
        "Plus maintenant : uniquement carte ou espèces.",
    ],
)
def test_a_dated_or_switched_change_is_a_reversal(text: str) -> None:
    assert states_reversal(text), text


@pytest.mark.parametrize(
    "text",
    [
        "You can switch to a larger room at check-in.",
        "From spring to autumn we open on Sundays too.",
        "In summer the terrace is open until ten.",
        "Od jesieni do wiosny jesteśmy zamknięci w niedziele.",
        "Hinnat alkavat 20 eurosta alkaen.",
        "Sie können auf die Monatskarte umsteigen.",
        "The staff have gone to lunch; back at two.",
        "Yes, we have a summer menu and a winter menu.",
        "Det er ikke længere end 5 km til stranden.",
        "Det tar inte längre tid än tio minuter.",
        "Vi har inte mycket längre öppet på fredagar.",
        "Il y a plus maintenant que jamais de clients le samedi.",
    ],
)
def test_an_offer_a_season_or_a_price_from_is_no_reversal(text: str) -> None:
    assert not states_reversal(text), text
