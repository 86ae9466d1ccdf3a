"""The words of owner facts' concepts (``digest.facts``): the words people use for one thing,
in the languages the product screens most, and the word pairs read as one concept. Data only.
"""

from __future__ import annotations

import re

#: words that say nothing about what a question asks: function words, and the scaffolding of
#: questions ("do you offer", "is there", "available", "my order"), by language
#: (a function word of one language that is a content word of another is left out: Swedish
#: "men", Indonesian "dia" (Portuguese day), Romanian "pot", "care", "mai" (German May),
#: Hungarian "volt")
STOP = frozenset(
    """a an the and or but if of to in on at by for from with without about into over under as per
    via than then so do does did done doing you your yours we our ours us i me my mine they them
    their he she it its this that these those there here is are was were be been being am have
    has had having can could will would shall should may might must not no yes what which who
    whom whose where why how also still now just only any some all every each much many more
    most very too please get gets got offer offers offered provide provides available possible
    allowed able option options anyone someone somebody people customer customers client clients
    guest guests visitor visitors order orders item items product products purchase purchases
    thing things way kind sort let ok okay use used using until accept accepts accepted
    take takes taken shop shops store stores anything something everything friendly bring
    need needs needed require requires required necessary mandatory want wants wanted
    bought buy buys someone somewhere
    make makes made during within throughout
    today tonight currently nowadays heute hoy aujourd'hui hoje oggi vandaag idag dzisiaj dziś
    tänään
    der die das den dem des ein eine einen einem einer und oder aber wenn von zu im in am an auf
    bei für mit ohne über ist sind war waren sein hat haben habe kann können wird werden sie wir
    ihr ich du es gibt geben man mein meine unser unsere ihre ihren auch noch nur kein keine
    nicht ja nein wie was wo welche welcher welches darf dürfen meinen meinem meiner erlaubt
    möglich verfügbar autorisé autorisée permis possible disponible permitido permitida posible
    possível permesso permessa possibile disponibile toegestaan mogelijk beschikbaar
    le la les un une des du de d l et ou mais si à au aux en dans sur par pour avec sans est
    sont être avez avons ont vous nous je tu il elle ils elles on ce cette ces mon ma mes votre
    vos notre nos leur leurs y peut peux pouvez pouvons faites fait faire a-t-il est-ce que qui
    quoi où comment combien pas ne oui non aussi encore seulement
    el la los las un una unos unas y o pero si de del al en con sin por para es son está están
    ser hay tiene tienen se puede pueden puedo hace hacen hacer usted ustedes nosotros yo mi mis
    su sus nuestro nuestra qué cuál dónde cómo cuánto cuánta no sí también todavía solo
    o a os as um uma e ou mas se do da dos das no na nos nas em com sem por para é são está
    estão ser há tem têm pode podem posso faz fazem fazer você vocês nós eu meu minha seu sua
    nosso nossa quê qual onde como quanto não sim também ainda só
    il lo gli i una uno e o ma se di del della dei delle al alla in con senza per è sono può
    possono posso fate fa fare avete abbiamo voi noi io mio mia suo sua nostro nostra cosa quale
    dove come quanto non sì anche ancora solo
    de het een en of maar als van voor met zonder op in is zijn was waren heeft hebben u kan
    kunt kunnen doet doen jullie wij ik mijn ons onze wat welke waar hoe hoeveel niet ja
    nee ook nog alleen
    ihnen euch nehmen nimmt genommen annehmen akzeptieren akzeptiert laden geschäft kommen
    accepté acceptée acceptés acceptées acceptez acceptons magasin boutique puis venir
    aceptan aceptáis aceptamos tienda venir aceitam aceita loja vir accettate accettano negozio
    venire accepteren winkel komen
    dá dão
    onko ovatko voiko voinko voimmeko saako saanko teillä teiltä teidän te me minä mikä mitä
    missä milloin kuinka paljonko ja tai on ei kyllä myös vielä vain nyt tilaus tilauksia
    tilaukset tilauksen
    czy jest są się nie tak jak ile gdzie kiedy można mogę możecie wasz wasza wasze państwo
    jeszcze teraz tylko zamówienie zamówienia za trzeba
    har ni vi jag du han hon det den de dem er oss mig dig sig min mitt mina din ditt dina
    vår vårt våra er ert era och eller om att som på i av för med utan till från hos vid
    är var vara varit blir bli kan kunna får få ska skall måste går gå gör göra finns
    fortfarande ännu också bara nu idag ja nej inte vad vilken vilket vilka var när hur
    komma kommer förbi
    dere dykk jeg meg deg seg hun han min mitt mine din ditt dine vår vårt våre deres og
    eller om at som på av for med uten til fra hos ved er var være vært blir bli kan
    kunne får få skal må gjør gjøre fortsatt ennå også bare nå ja nei ikke hva hvilken
    hvilket hvilke hvor når hvordan tar ta
    jer mig dig os jeres vores mit min mine dit din dine af til fra hos ved være været
    bliver blive kunne gør gøre stadig endnu kun nu nej ikke hvad hvilken hvilket hvor
    hvornår hvordan tager imod
    apakah ada masih sudah belum bisa boleh dapat saya kami kita anda kamu mereka ini
    itu di ke dari dan atau tetapi untuk dengan tanpa pada yang adalah akan juga hanya
    sekarang ya tidak bukan apa mana kapan bagaimana berapa
    și sau dar dacă de la în pe cu fără pentru din este sunt era fi poate puteți aveți
    avem voi noi eu meu mea vostru voastră ce unde când cum cât încă doar acum da nu
    se vă ne
    és vagy de ha a az egy van vannak lesz lehet tud tudok tudnak önök ön mi ti én
    nekem nálunk önöknél még csak most igen nem is mit melyik hol mikor hogyan mennyi
    faut faut-il
    """.split()  # noqa: SIM905
)

#: concepts: the words people use for one thing, each mapped to one term. A word mapped to
#: ``-concept`` names its absence (free = no cost): it turns the question's stance around.
CONCEPTS: dict[str, str] = {}
for _concept, _words in {
    "cost": """kostar koster betala betale betal avgift avgifter priser priset prisen biaya
        harga bayar membayar costă preț prețul plată plăti taxa ár ára fizetni fizetés díj díja
        pay pays paid paying payment cost costs costing price prices priced pricing
        charge charges charged fee fees expensive cheap tariff kosten kostet gebühr teuer
        gebühren bezahlen zahlen zahlt preis payer payez payant payante frais prix coût coûte
        tarif pagar paga pago precio cuesta costo coste tarifa preço custa custo pagare
        prezzo costa tariffa betalen kost prijs maksaa maksu maksut hinta hinnat kosztuje
        koszt koszty cena ceny opłata płatność zapłacić pagamento pagamentos
        cenę cenie płacić zapłacę dopłacić dopłata""",
    "-cost": """kostnadsfritt kostnadsfri gratis gratuit ingyenes ingyen
        free gratis kostenlos kostenfrei umsonst gratuit gratuite gratuits gratuites
        gratuito gratuita grátis gratuitamente gratuiti
        included inclus incluse compris comprise inklusive inbegriffen incluido incluida
        incluidos incluso inclusa incluído incluída inbegrepen inclusief wliczone wliczony
        wliczona ingår inkluderet inkludert""",
    "deliver": """leverans leveranser leverera levererar levere leverer levering leveringer
        udbringning hjemlevering hemleverans pengiriman kirim mengirim antar livrare livrăm
        livrați expediere szállítás kiszállítás házhozszállítás szállítják
        deliver delivers delivered delivering delivery deliveries ship ships shipped
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
    "open": """öppet öppen öppna öppettider åpent åpen åpne åpningstider åbent åben åbne
        åbningstider buka deschis deschisă nyitva nyitvatartás
        open opens opened opening hours öffnungszeiten geöffnet offen ouvert ouverte
        ouverture horaires abierto abierta horario aberto aberta horário aperto aperta orario
        openingstijden""",
    "-open": """stängt stängd stängda stengt stengte lukket lukker tutup închis închisă zárva
        closed close closes shut geschlossen fermé fermée cerrado cerrada fechado
        fechada chiuso chiusa gesloten""",
    "phone": """phone phones telephone call calls ring telefon anrufen téléphone appeler
        teléfono llamar telefone ligar telefono chiamare bellen""",
    "refund": """refund refunds refunded reimburse reimbursed reimbursement erstattung
        rückerstattung erstatten remboursement rembourser reembolso reembolsar rimborso
        terugbetaling""",
    "appointment": """boka bokning bokningar bestille bestilling booke booking
        reservasi janji programare rezervare foglalás időpont
        appointment appointments book books booked booking bookings reserve
        reserved reservation reservations termin termine buchen buchung rendez-vous réserver
        réservation cita citas reservar reserva marcação marcar agendamento appuntamento
        prenotare prenotazione afspraak reserveren reservering""",
    # who comes without an appointment ("walk-ins", "drop-in", ``PHRASES``): its absence
    "-appointment": """walkin walkins laufkundschaft""",
    "collect": """collect collects collected collecting collection pickup pickups pick-up
        click-and-collect abholen abholung abholbar retirer retrait recoger recogida recolher
        retirada ritirare ritiro ophalen""",
    "park": """voiture voitures coche coches carro carros bil bilen parkering
        parkere parkeringsplads parkir parcare parcarea parkoló parkolás
        park parks parking car cars parkplatz parken stationnement garer aparcar
        aparcamiento estacionamento estacionar parcheggio parcheggiare parkeren""",
    "stock": """stock stocks inventory inventories lager vorrat existencias estoque
        scorte giacenza voorraad""",
    "cash": """cash bar bargeld barzahlung espèces liquide efectivo contado dinheiro
        contanti contant kontant kontanter""",
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
    # cash named with the word for money ("contant geld", "dinero en efectivo", "argent
    # liquide"): one thing, not cash and money
    (
        re.compile(
            r"\b(?:contant|kontant)e? (?:geld|penger|penge|pengar)\b|\bdinero en efectivo\b"
            r"|\bargent liquide\b|\bdenaro contante\b|\bdinheiro vivo\b|\bcash money\b"
        ),
        "cash",
    ),
    (re.compile(r"\bpick(?:s|ed|ing)? up\b"), "collect"),
    # a schedule's times are its hours ("opening times", "collection times")
    (re.compile(r"\b(opening|collection|pickup|pick-up) times\b"), r"\1 hours"),
    (re.compile(r"\bclose (?:by|to)\b"), "near"),
    (re.compile(r"\b(?:at )?any ?time\b"), " "),
    (re.compile(r"\bfree of charge\b|\bat no (?:extra )?cost\b|\bno charge\b"), "free"),
    # who comes without booking: a walk-in, a drop-in; and the verbs, where nothing follows
    # that says where ("Can I just walk in for a trim?", not "walk in the park")
    (re.compile(r"\b(?:walk|drop)-ins?\b"), "walkin"),
    (
        re.compile(
            r"\b(?:walk|drop|pop)(?:s|ed|ing)? in\b(?!\s+(?:the|a|an|my|our|your|to|on|at|"
            r"into|through)\b)"
        ),
        "walkin",
    ),
    # the weekend in words ("fin de semana", "fim de semana", "fine settimana")
    (
        re.compile(r"\b(?:fin(?:es)?|fim|fins) de semana\b|\bfine settimana\b|\bweek-ends?\b"),
        "weekend",
    ),
)

#: words that say the word after them is absent ("without booking", "sin pagar", "ohne
#: Termin"): that term names an absence, as a ``-concept`` does, and turns the stance around
WITHOUT = frozenset(
    """without sin sans ohne senza sem zonder bez utan uden uten ilman fără""".split()  # noqa: SIM905
)

#: the weekend, by language, and the days it is made of: a new answer about the weekend
#: speaks of each of its days (``digest.model.offline_asked``; never the other way round: a
#: Saturday is not the whole weekend)
WEEKEND = frozenset(
    """weekend weekends wochenende finde
    helg helgen helgerna weekenden weekendy viikonloppu viikonloppuna hétvége hétvégén""".split()  # noqa: SIM905
)
WEEKEND_DAYS = frozenset(
    """saturday saturdays sunday sundays samstag samstags sonnabend sonntag sonntags samedi
    samedis dimanche dimanches sábado sábados domingo domingos sabato sabati domenica
    domeniche zaterdag zaterdagen zondag zondagen sobota soboty sobotę niedziela niedziele
    niedzielę lördag lördagar söndag söndagar lørdag lørdage lørdager søndag søndage søndager
    lauantai lauantaisin sunnuntai sunnuntaisin szombat vasárnap""".split()  # noqa: SIM905
)
#: the working days, by language: with ``WEEKEND_DAYS``, when something holds, never what
WORKING_DAYS = frozenset(
    """monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday fridays
    montag montags dienstag dienstags mittwoch mittwochs donnerstag donnerstags freitag
    freitags lundi lundis mardi mardis mercredi mercredis jeudi jeudis vendredi vendredis
    lunes martes miércoles jueves viernes segunda terça quarta quinta sexta lunedì martedì
    mercoledì giovedì venerdì maandag maandagen dinsdag dinsdagen woensdag woensdagen
    donderdag donderdagen vrijdag vrijdagen måndag måndagar tisdag tisdagar onsdag onsdagar
    torsdag torsdagar fredag fredagar mandag mandage mandager tirsdag tirsdage tirsdager
    onsdage onsdager torsdage torsdager fredage fredager poniedziałek wtorek środa środę
    czwartek piątek pondělí úterý středa čtvrtek pátek maanantai tiistai keskiviikko torstai
    perjantai pazartesi salı çarşamba perşembe cuma hétfő kedd szerda csütörtök péntek""".split()  # noqa: SIM905
)
