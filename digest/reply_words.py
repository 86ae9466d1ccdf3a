"""The words of a reply that the shape rules of an edit read (``digest.edits``): a promise
(a date, a guarantee, an offer the reply commits the business to), the familiar and the polite
"you" of a language, and a hedge written where a promise was ("as soon as possible"), in
English and the other languages the product screens. Tables only; ``digest.reply_text`` reads
a reply's greeting, apology, courtesy and sentences.
"""

from __future__ import annotations

import re

#: what a reply promises: a guarantee, a date, an adverb of certainty, an offer
PROMISE = re.compile(
    r"\b(guarantee[ds]?|promise[ds]?|definitely|certainly|for sure|100 ?%|will (?:arrive|be "
    r"(?:delivered|there|shipped|refunded))|by (?:tomorrow|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|next week|end of day)|within \d+ (?:hours?|days?)|today"
    # an offer the reply commits the business to: "we'll give you a free courtesy car"
    r"|(?:give|send|offer|lend) you (?:a |an |our )?(?:free|complimentary)|complimentary"
    # a hold the reply commits to before anyone confirmed it: "we'll hold it for you"
    r"|(?:we|i)(?:'ll| will) (?:hold|reserve|keep|save) (?:[\w-]+ ){1,3}?for you"
    # the same commitments in the other languages the product screens: a guarantee, a promise,
    # an adverb of certainty, "today still" / "by tomorrow"
    r"|garantiert|versprochen|auf jeden fall|ganz sicher|definitiv|heute noch|bis morgen"
    r"|garantie?s?|promis|certainement|sans faute|à coup sûr|assurément|dès demain|d'ici demain"
    r"|garantizad[oa]s?|prometid[oa]|seguro que|sin falta|definitivamente|hoy mismo|para mañana"
    r"|garantit[oa]|promesso|sicuramente|di sicuro|senz'altro|entro domani|oggi stesso"
    r"|garantid[oa]|com certeza|certamente|sem falta|hoje mesmo|até amanhã"
    r"|gegarandeerd|beloofd|zeker weten|beslist|vandaag nog|uiterlijk morgen"
    # Polish, Swedish, Danish and Norwegian, Czech, Finnish, Turkish
    r"|obiecuj\w*|gwarantuj\w*|gwarantowan\w*|na pewno|jeszcze dziś|do jutra"
    r"|lovar|garanterar|garanterat|definitivt|redan idag|senast imorgon"
    r"|vi lover|jeg lover|garanterer|garanteret|garantert|helt sikkert|senest i morgen"
    r"|slibuj\w*|zaručen\w*|garantujeme|určitě|ještě dnes|do zítřka"
    r"|lupaa\w*|lupaan|takaamme|taatusti|varmasti|vielä tänään|huomiseen mennessä"
    r"|söz veriyoruz|söz veriyorum|garanti ediyoruz|kesinlikle|yarına kadar)\b",
    re.I,
)


#: how a reply addresses the reader, per language that has a familiar and a polite "you"
#: (informal, formal): German and Italian write the polite forms with a capital
ADDRESS = tuple(
    (re.compile(rf"\b(?:{informal})\b", re.I), re.compile(rf"\b(?:{formal})\b", flags))
    for informal, formal, flags in (
        ("du|dich|dir|dein|deine|deinen|deinem|deiner|deines",
         "Sie|Ihnen|Ihr|Ihre|Ihren|Ihrem|Ihrer|Ihres", 0),
        ("tu|te|toi|ton|ta|tes|t'", "vous|votre|vos", re.I),
        ("tú|tu|tus|te|ti|contigo", "usted|ustedes|su|sus", re.I),
        ("tu|ti|tuo|tua|tuoi|tue", "Lei|Le|Suo|Sua|Suoi|Sue", 0),
        ("tu|te|teu|tua|teus|tuas|contigo", "o senhor|a senhora|senhor|senhora", re.I),
        ("je|jij|jou|jouw", "u|uw", re.I),
    )
)  # fmt: skip


#: how a reply says "when it is ready" without a date: what replaces a promise
HEDGE = re.compile(
    r"\b(?:as soon as|as quickly as|shortly|we(?:'ll| will) (?:let you know|keep you (?:posted|"
    r"updated)|update you|be in touch)|(?:cannot|can't|can not) (?:promise|guarantee)|no (?:exact|"
    r"fixed) date"
    # "as soon as possible" in the other languages the product screens
    r"|so bald wie möglich|so schnell wie möglich|schnellstmöglich|sobald|dès que possible"
    r"|au plus vite|dès que|lo antes posible|cuanto antes|en cuanto|(?:il )?prima possibile"
    r"|appena possibile|quanto prima|assim que possível|o mais rápido possível|o quanto antes"
    r"|zo snel mogelijk|zodra"
    # and "we will get back to you / let you know", there and in Polish, the Nordic languages,
    # Czech, Finnish and Turkish
    r"|(?:get|come) back to you|once we know more|when we know more|wir melden uns|auf dem "
    r"laufenden|nous vous tiendrons inform\w*|revenons vers vous|le mantendremos informad\w*"
    r"|le avisaremos|la terremo aggiornat\w*|le faremo sapere|manteremos (?:você|o senhor|a "
    r"senhora) informad\w*|avisaremos|we laten (?:het )?u weten|we houden u op de hoogte"
    r"|jak najszybciej|możliwie szybko|odezwiemy się|damy znać|gdy tylko|jak tylko"
    r"|så snart som möjligt|så fort som möjligt|snarast|vi hör av oss|återkommer"
    r"|så snart som muligt|så hurtigt som muligt|snarest|vi vender tilbage|vi kommer tilbake"
    r"|vi giver besked|vi gir beskjed|co nejdříve|co nejrychleji|jakmile|ozveme se|dáme vědět"
    r"|mahdollisimman pian|heti kun|palaamme asiaan|ilmoitamme|en kısa sürede|en kısa zamanda"
    r"|bilgi vereceğiz|dönüş yapacağız)\b",
    re.I,
)
NUMBER_WORD = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty)\b",
    re.I,
)
