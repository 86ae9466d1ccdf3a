"""The words of owner facts' concepts (``digest.facts``): the words people use for one thing,
in the languages the product screens most, and the word pairs read as one concept. Data only.
"""

from __future__ import annotations

import re

#: concepts: the words people use for one thing, each mapped to one term. A word mapped to
#: ``-concept`` names its absence (free = no cost): it turns the question's stance around.
CONCEPTS: dict[str, str] = {}
for _concept, _words in {
    "cost": """pay pays paid paying payment cost costs costing price prices priced pricing
        charge charges charged fee fees expensive cheap tariff kosten kostet gebühr teuer
        gebühren bezahlen zahlen zahlt preis payer payez payant payante frais prix coût coûte
        tarif pagar paga pago precio cuesta costo coste tarifa preço custa custo pagare
        prezzo costa tariffa betalen kost prijs maksaa maksu maksut hinta hinnat kosztuje
        koszt koszty cena ceny opłata płatność zapłacić pagamento pagamentos""",
    "-cost": """free gratis kostenlos kostenfrei umsonst gratuit gratuite gratuits gratuites
        gratuito gratuita grátis gratuitamente gratuiti""",
    "deliver": """deliver delivers delivered delivering delivery deliveries ship ships shipped
        shipping shipment shipments dispatch dispatched arrive arrives arrival send sends sent
        post posted postage courier liefern liefert lieferung lieferungen versand versenden
        versendet zustellung livrer livrez livré livraison livraisons expédier expédition
        envoyer envoi envoyez enviar envían envío envíos entrega entregas entregar entregan
        enviamos envio spedire spedizione spedizioni consegna consegne consegnare
        leveren levering bezorgen bezorging verzenden verzending toimitus toimitukset
        toimittaa toimitatte toimitamme kotiinkuljetus kuljetus wysyłka wysyłki wysyłamy
        dostawa dostawy dostarczacie""",
    "return": """return returns returned returning rücksendung rückgabe retoure
        retour retours retourner renvoyer devolución devoluciones devolver devolução
        devoluções devolver reso resi restituzione restituire retourneren""",
    "duration": """when long time times quick quickly fast soon wann quand cuándo quando
        wanneer lange dauer dauert délai longtemps
        temps plazo tiempo tarda prazo demora tempo durata tijd duurt""",
    "discount": """discount discounts discounted reduction reductions rebate sale sales
        clearance reduced markdown markdowns rabatt
        ermäßigung réduction réductions remise descuento descuentos desconto descontos
        sconto sconti korting""",
    "open": """open opens opened opening hours öffnungszeiten geöffnet offen ouvert ouverte
        ouverture horaires abierto abierta horario aberto aberta horário aperto aperta orario
        openingstijden""",
    "-open": """closed close closes shut geschlossen fermé fermée cerrado cerrada fechado
        fechada chiuso chiusa gesloten""",
    "phone": """phone phones telephone call calls ring telefon anrufen téléphone appeler
        teléfono llamar telefone ligar telefono chiamare bellen""",
    "refund": """refund refunds refunded reimburse reimbursed reimbursement erstattung
        rückerstattung erstatten remboursement rembourser reembolso reembolsar rimborso
        terugbetaling""",
    "appointment": """appointment appointments book books booked booking bookings reserve
        reserved reservation reservations termin termine buchen buchung rendez-vous réserver
        réservation cita citas reservar reserva marcação marcar agendamento appuntamento
        prenotare prenotazione afspraak reserveren reservering""",
    "collect": """collect collects collected collecting collection pickup pickups pick-up
        click-and-collect abholen abholung abholbar retirer retrait recoger recogida recolher
        retirada ritirare ritiro ophalen""",
    "park": """park parks parking car cars parkplatz parken stationnement garer aparcar
        aparcamiento estacionamento estacionar parcheggio parcheggiare parkeren""",
    "stock": """stock stocks inventory inventories lager vorrat existencias estoque
        scorte giacenza voorraad""",
    "cash": """cash bar bargeld barzahlung espèces liquide efectivo contado dinheiro
        contanti contant""",
    "exchange": """exchange exchanges exchanged swap swaps umtausch umtauschen échange
        échanger cambio cambiar troca trocar ruilen""",
}.items():
    CONCEPTS.update(dict.fromkeys(_words.split(), _concept))

#: word pairs read as one concept ("return shipping" is what a return costs, not a delivery)
PHRASES = (
    (re.compile(r"\breturn (?:shipping|postage|delivery|label)s?\b"), "return"),
    (re.compile(r"\bhow much\b"), "cost"),
    # the hours something runs to: "until what time can I collect", "how late do you deliver"
    (re.compile(r"\b(?:until|till|til|up to) what time\b|\bhow late\b"), "hours"),
    (re.compile(r"\b(?:money|cash) back\b"), "refund"),
    (re.compile(r"\bpick(?:s|ed|ing)? up\b"), "collect"),
    # a schedule's times are its hours ("opening times", "collection times")
    (re.compile(r"\b(opening|collection|pickup|pick-up) times\b"), r"\1 hours"),
    (re.compile(r"\bclose (?:by|to)\b"), "near"),
    (re.compile(r"\b(?:at )?any ?time\b"), " "),
    (re.compile(r"\bfree of charge\b|\bat no (?:extra )?cost\b|\bno charge\b"), "free"),
)
