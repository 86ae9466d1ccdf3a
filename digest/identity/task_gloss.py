"""A task's words as the static table should read them, in the languages the product screens.

The static embedding table (``digest.identity.distil``) comes from an English model: a later
task told in French ("je veux être remboursé") shares no direction with the English runs it
should find ("I want my money back"), and the keywords share no word. ``digest.identity.gloss``
reads the words of errors and service answers as English; this module adds the words users
ask for things with, in German, French, Spanish, Portuguese, Italian, Dutch, Danish, Norwegian
and Swedish: what they want done (cancel, refund, change, book, buy, deliver, extend, pause,
postpone, share, merge …) and what to (order, parcel, flight, train, seat, car,
subscription, prescription, course, trip, meeting, spreadsheet …); and, from
``digest.identity.task_gloss_more``, in Polish, Czech, Turkish, Indonesian, Hungarian,
Romanian, Greek, Russian and Ukrainian (where a stem is in both, the older lists decide).

Users conjugate and decline ("annulé", "annuler", "annulation"; "stornieren", "Stornierung"),
so these are stems: a word read here begins with one of them (accents ignored, at least
``MIN_STEM`` letters, followed by at most ``MAX_ENDING``, fewer after a short stem), the longest
one deciding. A word the
English vocabulary holds whole (``digest.identity.wordpiece``), or its -ing or -ed form, keeps
its own meaning ("reservation", "contacting"): only words the table cannot read are glossed by
stem. Exact words of ``gloss.GLOSSES`` come first.

For retrieval only: what a prompt and a lesson's tasks mean (``digest.retrieve.prompt_meaning``,
``digest.lessons.vectors``) and which keywords a prompt adds (``digest.retrieve.prompt_keywords``);
nothing here is shown to anyone.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from digest.bounded import memo
from digest.identity.gloss import GLOSSES
from digest.identity.task_gloss_more import (
    MORE_FUNCTION_WORDS,
    MORE_STEMS_BY_MEANING,
    PLAIN_LETTERS,
)

#: the shortest stem read
MIN_STEM = 4
#: a word read by a stem goes on past it by at most this many letters (an ending:
#: "rembours|ement", "stornier|ung"); past a short stem, fewer ("auto|s", not "auto|pay")
MAX_ENDING = 6
SHORT_ENDINGS = {4: 2, 5: 4}

#: English word(s) → stems of the words users say it with in the screened languages
_STEMS_BY_MEANING = {
    "cancel": """cancel stornier storno annul annulation anular anulac anulaç cancelam cancelac
        cancelaç disdir disdic opzeg annuller avbest afbestil avbestill avboka kundig kündig""",
    "refund": """erstatt ruckerstatt rückerstatt rembours reembols rimbors terugbetal
        tilbagebetal tilbakebetal aterbetal återbetal""",
    "return": """rucksend rücksend zuruckschick zurückschick ruckgabe rückgabe retourn devolv
        devoluc devoluç devolu restitu terugstuur terugsturen returner returnera""",
    "exchange": "umtausch umtaus echang échang trocar troca ruilen omruil ombyt bytte",
    "change": "modifi cambi mudar wijzig aendr ændr endre",
    "book": """buchen buchung reservi réserv reserv prenot boeken boek bestil boka bokning""",
    "order": """bestell commande pedid ordin encomend bestel bestill bestäl""",
    "deliver": "liefer zustell livr entreg consegn bezorg levering leveran",
    "parcel": "paket colis paquet pacote pacco pakket pakke",
    "ticket": """eintrittskart fahrkart billett biljett bilhete bigliett entrada entradas
        kaartje""",
    "flight": "flug vuelo volo vlucht flyg flyreis",
    "train": "zug treno trein tren tåg",
    "seat": "sitzplatz siege siège asiento assento zitplaats plads sitteplass sittplats",
    "car": """auto wagen voiture coche carro macchina mietwagen""",
    "rent": """miet mieten locat louer loue alquil alug nolegg huur leje leie hyra hyrbil""",
    "luggage": "gepack gepäck koffer bagag equipaj maleta bagaglio valigi kuffert resväska",
    "subscription": """abonn abonnement suscrip subscri assinatur abbonam""",
    "membership": """mitgliedschaft adhesion adhésion membres afiliac iscrizion lidmaatschap
        medlemskab medlemskap""",
    "plan": "tarif tarifa tariffa plano",
    "phone": "movil móvil celular cellulare telemovel telemóvel mobiel mobil",
    "connection": """verbindung connexion conexion conexión conexao conexão connession
        verbinding forbindelse anslutning""",
    "paid": "bezahlt gezahlt payé paye pagado pagato pagou pago betaald betalt betalade",
    "charged": "belastet abgebucht débité debite cobrado cobrad addebitat afgeschreven",
    "broken": """kaputt beschadigt beschädigt defekt cassé endommag abim abîm rott dañad danad
        estragad quebrad dannegg kapot beschadig odelagt ødelagt trasig skadad""",
    "lost": "verloren perdu perdid perso kwijt mistet borttappad",
    "arrived": "angekommen arrive arrivé llego llegó chegou chegad arrivat aangekomen ankom",
    "delayed": "verspat verspät retard retras atras ritard vertraag forsink försen forsen",
    "medication": """medikament medicament médicament medicin farmaco fármaco remedio
        remédio geneesmiddel lægemiddel legemiddel läkemedel""",
    "pharmacy": "apothek pharmac farmac apotek",
    "prescription": "rezept ordonnanc receta receita ricett recept",
    "doctor": "arzt ärzt medecin médecin medico médico dokter laege læge lakare läkare",
    "course": "kurs cours curso corso cursus",
    "register": "anmeld inscri iscriv inschrijv tilmeld registr",
    "gym": "fitnessstudio gimnas palestra sportschool treningssenter",
    "insurance": "versicher assur seguro assicur verzeker forsikr försäkr",
    "claim": "reclam beschwerd reklamation klage",
    "passenger": "passagier passager pasajer passageir passegger reisend viajer",
    "name": "nombre nome naam navn namn",
    "colour": "farbe couleur colore kleur farve farge färg",
    "cheaper": "billig gunstig günstig barato economic goedkop",
    "extend": "verlanger verlänger prolong prorrog forlæng forleng förläng",
    "pause": "pausier pausar opschort sospend",
    "food": "essen repas comida refeic refeiç cibo eten maaltijd maten",
    "table": "tisch mesa tavolo tafel",
    "window": "fenster fenêtre fenetre ventan janela finestr raam vindue",
    "meter": "zahler zähler compteur contador contatore meterstand",
    "electricity": "strom electricit électricit electricid eletricid elettricit stroom",
    "repair": "reparatur répar repar ripar reparer",
    "appointment": "rendez cita consulta appuntament afspraak aftale",
    "passport": "reisepass passeport pasaporte passaporte paspoort",
    "account": "konto compte cuenta conta conto rekening",
    # what an office or shopping agent is asked for (session 10)
    "buy": "kaufen kauf achet achèt compra acquist koop kopen köpa kopa kjøp kjop købe kobe",
    "meeting": "besprechung réunion reunión reuniã riunion vergader",
    "trip": "reise voyag viaje viage viaggi reis resa rejse",
    "postpone": "verschieb aplaz adiar rinvi uitstel utsett udsæt",
    "spreadsheet": "tabelle tableur planilha foglio rekenblad regneark kalkylblad",
    "share": "teilen partag compart condivid delen",
    "merge": "zusammenfuhr zusammenführ fusionn fusion mescl unisc samenvoeg sammanfog flett",
}

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?", re.UNICODE)


def plain_letters(word: str) -> str:
    """``word`` casefolded, its accents dropped."""
    decomposed = unicodedata.normalize("NFD", word.casefold().translate(PLAIN_LETTERS))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


#: stem (plain) → the English word(s) it reads as
STEMS: dict[str, str] = {
    plain_letters(stem): meaning
    for by_meaning in (MORE_STEMS_BY_MEANING, _STEMS_BY_MEANING)
    for meaning, stems in by_meaning.items()
    for stem in stems.split()
    if len(plain_letters(stem)) >= MIN_STEM or stem in ("zug", "tåg")
}
_LONGEST = max(len(stem) for stem in STEMS)


@lru_cache(maxsize=1)
def _english() -> frozenset[str]:
    """The whole words of the table's (English) vocabulary."""
    from digest.identity.wordpiece import default_tokenizer

    return frozenset(t for t in default_tokenizer().vocab if t.isalpha())


def _is_english(plain: str) -> bool:
    """Is ``plain`` a word of the English vocabulary, or one of its -ing or -ed forms
    ("contacting", "reclaimed": not "conta…" nor "reclam…")?"""
    english = _english()
    if plain in english:
        return True
    for ending in ("ing", "ed"):
        if plain.endswith(ending):
            bare = plain[: -len(ending)]
            if bare in english or f"{bare}e" in english:
                return True
    return False


#: words a process remembers the reading of, and their bytes (``digest.bounded``): every word
#: of every task's telling words and of every replayed prompt is read here
WORDS_KEPT, WORDS_BYTES = 4096, 2**20


@memo(WORDS_KEPT, WORDS_BYTES)
def read_as(word: str) -> str | None:
    """What ``word`` reads as in English for retrieval, or None when it stays itself."""
    folded = word.casefold()
    found = GLOSSES.get(folded)
    if found is not None:
        return found
    if folded in MORE_FUNCTION_WORDS:
        return ""
    plain = plain_letters(folded)
    if plain in STEMS:
        return STEMS[plain]
    if _is_english(plain):
        return None
    for end in range(min(len(plain), _LONGEST), max(MIN_STEM, len(plain) - MAX_ENDING) - 1, -1):
        meaning = STEMS.get(plain[:end])
        if meaning is not None and len(plain) - end <= SHORT_ENDINGS.get(end, MAX_ENDING):
            return meaning
    return None


def _english_of(match: re.Match[str]) -> str:
    found = read_as(match.group(0))
    return match.group(0) if found is None else found


def gloss_task(text: str) -> str:
    """``text`` with each word read as its English word where it has one (``read_as``)."""
    return " ".join(_WORD.sub(_english_of, text).split())
