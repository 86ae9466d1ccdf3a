"""Glossing for the static table (``digest.identity.meaning``): the static embedding table is
English-centred, so the common words of errors and service answers in the languages the
product screens (German, French, Spanish, Portuguese, Italian, Dutch, Danish, Norwegian,
Swedish; the commonest error words of Polish, Czech and Turkish) are read as their English
words, and those languages' function words are left out. "Zahlung abgelehnt: Karte
abgelaufen" reads as "payment rejected card expired". Data and one function: a word not
listed stays as it is (names, codes and cognates read alike anyway).
"""

from __future__ import annotations

import re

from digest.function_words import FUNCTION_WORDS

#: English word → its spellings in the screened languages (words of errors and of services:
#: what failed, what is required, what a customer has, when)
_BY_MEANING = {
    "error": "fehler erreur erro errore fout fejl feil fel",
    "rejected": """abgelehnt abgewiesen zurückgewiesen refusé refusée rejeté rejetée rechazado
        rechazada denegado denegada recusado recusada rejeitado rejeitada rifiutato rifiutata
        respinto respinta geweigerd afgewezen afvist afviste avvist avvisad avvisat""",
    "failed": """fehlgeschlagen gescheitert échoué échouée échec fallido fallida falló falhou
        fallito fallita mislukt mislykkedes mislyktes misslyckades""",
    "invalid": """ungültig invalide inválido inválida invalido invalida ongeldig ugyldig
        ogiltig""",
    "valid": "gültig valide válido válida valido valida geldig gyldig giltig",
    "required": """erforderlich benötigt pflichtfeld obligatoire requis requise obligatorio
        obligatoria requerido requerida obrigatório obrigatória obbligatorio obbligatoria
        richiesto richiesta verplicht påkrævet påkrevd obligatorisk""",
    "missing": """fehlt fehlen fehlend manquant manquante falta faltan ausente mancante manca
        ontbreekt mangler saknas""",
    "found": """gefunden trouvé trouvée encontrado encontrada trovato trovata gevonden fundet
        funnet hittades""",
    "not found": "introuvable",
    "not": "nicht pas ikke inte niet non",
    "no": "kein keine keinen aucun aucune ningún ninguna nenhum nenhuma nessun nessuna geen ingen",
    "longer": "mehr lenger længere längre",
    "card": "karte carte tarjeta cartão carta kaart kort",
    "payment": "zahlung paiement pago pagamento betaling betalning",
    "expired": """abgelaufen expiré expirée caducado caducada vencido vencida expirado
        expirada scaduto scaduta verlopen udløbet utløpt utgått""",
    "number": "nummer nummeret numéro número numero",
    "code": "kode koden kod codice código",
    "date": "datum fecha dato",
    "booking": "buchung buchungen réservation reserva reservas prenotazione boeking bokning",
    "must": "muss müssen doit doivent debe deben deve devem moet moeten skal måste",
    "at least": "mindestens minstens almeno",
    "at most": "höchstens maximal",
    "least": "moins menos",
    "hours": "stunden stunde heures heure horas ore uur timer timmar",
    "days": "tage tagen jours días dias giorni dagen dage dager dagar",
    "advance": "voraus avance antelación antecedência anticipo",
    "stock": "lager existencias estoque scorte voorraad",
    "item": "artikel article artículo artigo articolo vare varen vara",
    "quantity": "menge quantité cantidad quantidade quantità aantal antal antall",
    "exceeds": "überschreitet dépasse supera excede overschrijdt overskrider överskrider",
    "limit": "grenze limite límite limiet grænse grense gräns",
    "allowed": """erlaubt zulässig autorisé autorisée permitido permitida consentito
        consentita toegestaan tilladt tillatt tillåten""",
    "available": """verfügbar disponible disponível disponibile beschikbaar tilgængelig
        tilgjengelig tillgänglig""",
    "matches": """passt übereinstimmt correspond coincide corresponde corrisponde overeenkomt
        passer stämmer""",
    "customer": "kunde kundin cliente klant kund",
    "account": "konto compte cuenta conta conto rekening",
    "order": "bestellung commande pedido ordine bestelling bestilling beställning",
    "address": "adresse dirección endereço indirizzo adres adress",
    "delivery": "lieferung zustellung livraison entrega consegna levering leverans",
    "shipping": "versand envío envio spedizione verzending forsendelse",
    "pickup": "abholung retrait recogida recolha ritiro ophalen afhentning henting upphämtning",
    "weekday": """werktag wochentag ouvrable ouvré laborable hábil feriale lavorativo werkdag
        hverdag vardag""",
    "day": "tag jour día dia giorno dag",
    "blocked": """gesperrt bloqué bloquée bloqueado bloqueada bloccato bloccata geblokkeerd
        blokeret sperret spärrad""",
    "already": "bereits schon déjà ya já già allerede redan",
    "cancelled": """storniert annulé annulée cancelado cancelada annullato annullata
        geannuleerd annulleret kansellert avbokad""",
    "invoice": "rechnung facture factura fatura fattura factuur faktura",
    "amount": "betrag montant importe valor importo bedrag beløb belopp",
    "balance": "guthaben saldo solde",
    "insufficient": """unzureichend insuffisant insuffisante insuficiente insufficiente
        onvoldoende utilstrækkelig otillräcklig""",
    "file": "datei fichier archivo arquivo fil",
    "size": "größe taille tamaño tamanho dimensione grootte størrelse storlek",
    "type": "typ tipo",
    "access": "zugriff accès acceso acesso accesso toegang adgang tilgang åtkomst",
    "denied": "verweigert denegado negado negato geweigerd nægtet nektet nekad",
    "sold out": "ausverkauft épuisé agotado esgotado esaurito uitverkocht udsolgt utsolgt slutsåld",
    "room": "zimmer chambre habitación quarto kamer værelse rom",
    "seat": "sitzplatz siège asiento assento posto zitplaats sæde sete",
    "appointment": "termin rendez-vous cita consulta appuntamento afspraak aftale time",
    "transfer": """übertragung transfert transferencia transferência trasferimento overdracht
        overførsel overføring överföring""",
    "field": "feld champ campo veld feltet fältet",
    "supported": """unterstützt supporté soportado suportado supportato ondersteund
        understøttet støttes stöds""",
    "use": "verwenden utilisez utiliser use usar utilizzare gebruik brug bruk använd",
    "instead": "stattdessen plutôt stedet istället",
    "phone": "telefon téléphone teléfono telefone telefono",
    "password": "passwort kennwort wachtwoord adgangskode passord lösenord",
    "permission": """berechtigung permiso permissão permesso bevoegdheid tilladelse tillatelse
        behörighet""",
    "price": "preis prix precio preço prezzo prijs pris",
    "free": "kostenlos gratuit gratuite gratis grátis gratuito gratuita",
    "open": """geöffnet ouvert ouverte abierto abierta aberto aberta aperto aperta geopend åben
        åpen öppen""",
    "closed": """geschlossen fermé fermée cerrado cerrada fechado fechada chiuso chiusa
        gesloten lukket stengt stängd""",
    "month": "monat mois mes mês mese maand måned månad",
    "year": "jahr année año ano anno jaar år",
    "week": "woche semaine semana settimana week uge uke vecka",
    "today": "heute aujourd'hui hoy hoje oggi vandaag idag i dag",
    "tomorrow": "morgen demain mañana amanhã domani imorgen",
    "too low": "zu niedrig trop bas demasiado bajo muito baixo troppo basso te laag",
    "too high": "zu hoch trop élevé demasiado alto muito alto troppo alto te hoog",
    "minimum": "mindestwert minimo mínimo",
    "maximum": "höchstwert massimo máximo",
    "submitted": "eingereicht soumis enviado presentado inviato ingediend indsendt innsendt",
    "photo": "foto bild photographie fotografia",
    "damage": "schaden dommage daño dano danno schade skade",
    "user": "benutzer utilisateur usuario utilizador utente gebruiker bruger bruker användare",
    "member": "mitglied membre miembro membro medlem",
    "loan": "ausleihe prêt préstamo empréstimo prestito lening lån",
}

#: the common words of errors in Polish, Czech and Turkish (the screen reads them since
#: session 11): what was refused, required, missing or exceeded
_MORE_LANGUAGES = {
    "rejected": """odrzucony odrzucona odrzucone odrzucono odmowa zamítnut zamítnuta zamítnuto
        odmítnut odmítnuta odmítnuto reddedildi reddedilmiştir""",
    "failed": "nieudane nieudana nezdařilo selhalo başarısız",
    "invalid": "nieprawidłowy nieprawidłowa nieprawidłowe neplatný neplatná neplatné geçersiz",
    "required": """wymagany wymagana wymagane wymaga wymagają povinný povinná povinné
        vyžaduje vyžadováno gerekli gerekiyor zorunlu""",
    "missing": "brak brakuje chybí chybějící eksik",
    "not found": "nenalezeno nenalezen nenalezena bulunamadı",
    "not": "nie değil",
    "no": "żaden żadna žádný žádná hiçbir",
    "number": "numer numeru číslo čísla numara numarası",
    "exceeds": "przekracza przekroczono překračuje překročen aşıyor aştı",
    "limit": "limitu limitem sınır sınırı sınırını",
    "allowed": "dozwolony dozwolone dozwolona povoleno povolen povolena izin",
    "booking": "rezerwacja rezerwacji rezervace rezervaci rezervasyon",
    "payment": "płatność platba ödeme",
    "expired": "wygasł wygasła wygasło vypršel vypršela",
    "available": "dostępny dostępna dostępne dostupný dostupná dostupné müsait",
    "minimum": "minimalny minimalna minimální",
    "maximum": "maksymalny maksymalna maximální",
}

# function words of those languages (``digest.function_words``): nothing the table can read
GLOSSES: dict[str, str] = dict.fromkeys(FUNCTION_WORDS, "")
for _meaning, _spellings in (*_BY_MEANING.items(), *_MORE_LANGUAGES.items()):
    GLOSSES.update(dict.fromkeys(_spellings.split(), _meaning))
# English words spelled like a foreign one stay English ("time", "use", "type", "file")
for _english_word in [
    "time",
    "use",
    "type",
    "file",
    "date",
    "limit",
    "stock",
    "week",
    "photo",
    "tag",
]:
    GLOSSES.pop(_english_word, None)

#: a word, with an elided article ("l'adresse") and the parts of a hyphenated compound
#: ("check-in", "e-mail") kept together: a compound's parts are no function words
_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*", re.UNICODE)


#: the definite endings of Danish, Norwegian and Swedish nouns ("kortet", "ordren"): a word
#: not listed is looked up without them
_DEFINITE = ("erne", "ene", "et", "en", "a", "n")
#: the passive and past endings of Danish, Norwegian and Swedish verbs ("avvisades",
#: "afvises", "godkjennes"): a word not listed is looked up without them
_PASSIVE = ("des", "tes", "es", "s")


#: an elided article or preposition before a word ("l'adresse", "all'appuntamento", "d'ordine")
_ELIDED = re.compile(r"^[^\W\d_]{1,5}'(?=[^\W\d_]{3,})")

#: the inflections of a Romance or Germanic verb, adjective or noun, longest first: a listed
#: form and an unlisted form of one word share what is left ("rifiutato", "rifiutate";
#: "annullato", "annullare"; "cancelado", "cancelar"; "abgelehnt", "abgelehnte")
_INFLECTIONS = tuple(
    sorted(
        """ato ata ati ate ado ada ados adas ido ida idi ide idos idas ito ita iti ite are ere
        ire ar er ir ée és ées é er et te tes es os as en e o a i s""".split(),  # noqa: SIM905
        key=len,
        reverse=True,
    )
)
#: the shortest stem ``_stem`` reads as one word (shorter ones collide across words)
STEM_MIN = 5


def _stem(word: str) -> str:
    """``word`` without its inflection (``_INFLECTIONS``), when at least ``STEM_MIN``
    letters are left; else the word."""
    return next(
        (
            word[: -len(e)]
            for e in _INFLECTIONS
            if word.endswith(e) and len(word) - len(e) >= STEM_MIN
        ),
        word,
    )


#: each listed spelling's stem → its English word, where the stem is one word's alone
_BY_STEM: dict[str, str] = {}
_CLASHES: set[str] = set()
for _spelling, _english_meaning in GLOSSES.items():
    if not _english_meaning:
        continue
    _key = _stem(_spelling)
    if _BY_STEM.setdefault(_key, _english_meaning) != _english_meaning:
        _CLASHES.add(_key)
for _key in _CLASHES:
    del _BY_STEM[_key]
#: the shortest head (last part) of a compound read on its own ("bank|konto",
#: "unterrichts|stunden"), and the shortest part before it
HEAD_MIN = 4
MODIFIER_MIN = 3
#: listed words that end no compound: they say how, not what ("lönekörn|ingen" is no "no")
_NOT_HEADS = frozenset(
    "no not longer must at least at most least already instead today tomorrow".split()  # noqa: SIM905
) | {"at least", "at most", "not found", "too low", "too high", "sold out"}


def _listed(folded: str) -> str | None:
    """The English of a word that is not listed as it is spelled: without a Scandinavian
    noun's definite ending or a verb's passive ending, or by its stem (another inflection of
    a listed word)."""
    for endings in (_DEFINITE, _PASSIVE):
        for ending in endings:
            if folded.endswith(ending) and len(folded) > len(ending) + 2:
                found = GLOSSES.get(folded[: -len(ending)])
                if found:
                    return found
    return _BY_STEM.get(_stem(folded))


def _compound(folded: str) -> str | None:
    """A Germanic compound read as its parts: the longest listed head (its last part, which
    says what the compound is: "bankkonto" is an account, "unterrichtsstunden" hours; a
    Scandinavian compound's definite ending off first), the part before it as it is spelled,
    without a linking "s" ("bank account", "unterricht hours")."""
    bare = [folded] + [folded[: -len(e)] for e in _DEFINITE if folded.endswith(e)]
    for word in bare:
        for cut in range(MODIFIER_MIN, len(word) - HEAD_MIN + 1):
            found = GLOSSES.get(word[cut:])
            if found and found not in _NOT_HEADS:
                modifier = word[:cut]
                if modifier.endswith("s") and len(modifier) > MODIFIER_MIN:
                    modifier = modifier[:-1]
                return f"{modifier} {found}"
    return None


def _in_table(folded: str) -> bool:
    """Is ``folded`` (or it without an English inflection) a word the table has a row of its
    own for (its tokenizer keeps it whole): an English word, read as it is ("booked",
    "notice"), not as another word's form."""
    # the tokenizer loads on first use: the capture path imports this module's data only
    from digest.identity.wordpiece import default_tokenizer

    tokenizer = default_tokenizer()
    bases = [folded] + [folded[: -len(e)] for e in _ENGLISH_ENDINGS if folded.endswith(e)]
    return any(len(tokenizer.tokenize(base)) == 1 for base in bases)


#: English inflections: "expires", "booked", "parties" are English words too
_ENGLISH_ENDINGS = ("s", "es", "ies", "d", "ed", "ing", "ly")


def _read(word: str, *, in_compound: bool = False) -> str:
    folded = word.casefold()
    found = GLOSSES.get(folded)
    if found == "" and in_compound:
        return word  # "check-in": a part of a compound is no function word
    if found is None and _ELIDED.match(folded):
        # French and Italian elide the article into the word: read the word
        word_alone = _ELIDED.sub("", folded)
        found = GLOSSES.get(word_alone, word_alone)
    if found is None and not in_compound and len(folded) > STEM_MIN and not _in_table(folded):
        found = _listed(folded) or _compound(folded)
    return word if found is None else found


def _english(match: re.Match[str]) -> str:
    word = match.group(0)
    if "-" not in word:
        return _read(word)
    found = GLOSSES.get(word.casefold())
    if found is not None:
        return found
    return "-".join(_read(part, in_compound=True) for part in word.split("-"))


def gloss(text: str) -> str:
    """``text`` with each word of ``GLOSSES`` read as its English word (function words out),
    and the words not listed as they are spelled read by their form: a Scandinavian noun's
    definite ending or verb's passive ending off, another inflection of a listed word, the
    head of a compound (``_listed``, ``_compound``)."""
    return _WORD.sub(_english, text)
