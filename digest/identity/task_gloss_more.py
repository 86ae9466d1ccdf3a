"""More stems for ``digest.identity.task_gloss``: the words users ask a tool-using agent for
things with in Polish, Czech, Turkish, Indonesian, Hungarian, Romanian, Greek, Russian and
Ukrainian (session 11), which no gloss read before: what they want done (send, pay, transfer,
approve, deploy, add, change, cancel, book, order, assign, confirm, sign, submit, register,
renew, freeze, move) and what to (invoice, salary, leave, warehouse, stock, customer,
contract, card, document, number, student, course, grade, court, shipment, customs).

The same form as ``task_gloss._STEMS_BY_MEANING``: English word(s) → stems, accents ignored, a
word read by the longest stem it begins with. Languages that write words without spaces or
in syllables shorter than a stem (Korean, Vietnamese, Chinese, Japanese) are not read here.
For retrieval only: nothing here is shown to anyone.
"""

from __future__ import annotations

#: English word(s) → stems, in Polish, Czech, Turkish, Indonesian, Hungarian, Romanian, Greek,
#: Russian and Ukrainian (in that order where a meaning has several)
MORE_STEMS_BY_MEANING = {
    "send": """wysl wysyl przesl posla posli odesl zasla gonder kirim kuld trimit
        στειλ στειλτ отправ надісл надiсл пересл""",
    "pay": "zaplac zaplat bayar fizet plati платеж оплат сплат πληρω",
    "payment": "platnos platnosc platb odeme pembayar kifizet",
    "transfer": """przelew przelac prevod prevest havale aktar atutal utalas μεταφορ
        перевод переказ""",
    "approve": """zatwierdz akceptuj schval onayla onay setuju menyetuj jovahagy aproba
        aprob εγκρι утверд одобр погод""",
    "deploy": "wdroz wdrozen nasad nasazen dagit yayinla terbit telepit",
    "add": "dodaj dodac dopis pridej pridat ekle tambah hozzaad adaug προσθε добав додай додат",
    "change": """zmien zmian zmenit zmena degistir ubah ganti modosit valtoztat schimb
        αλλαγ αλλαξ измен змін змiн""",
    "update": "aktualiz guncelle perbarui frissit actualiz ενημερ обнов онов",
    "cancel": "anuluj odwol zrus zrusit iptal batal lemond anula ακυρω отмен скасу",
    "book": "rezerw foglal κρατησ брон",
    "order": "zamow zamowien objedn siparis pesan rendel comand παραγγελ заказ замов",
    "invoice": "faktur fatura tagihan szamla factur τιμολογ счет рахун",
    "salary": """wyplat pensj wynagrodz mzda mzdy vyplat maas bordro gaji fizetes salari
        μισθ зарплат""",
    "bonus": "premi premia premie ikramiye bonus",
    "vacation": "urlop dovolen izin cuti szabadsag concedi αδει отпуск відпуст",
    "warehouse": "magazyn sklad depo gudang raktar depozit αποθηκ склад",
    "stock": "zapas zasob zasoby stok keszlet stoc αποθεμ запас",
    "count": "sayim hitung leltar inwentar inventur",
    "customer": "klient zakazn musteri pelanggan ugyfel πελατ клиент клієнт",
    "contract": "umow smlouv sozlesme kontrak szerzodes contract συμβολαι договор угод",
    "card": "kart karta kartu kartya καρτ карт",
    "document": "dokument belge dokumen dokumentum document документ",
    "number": "numer cisl numara nomor szam numar αριθμ номер",
    "phone": "telefon ponsel κινητ телефон",
    "student": "uczni studenc ogrenci mahasisw siswa murid hallgato diak elev μαθητ студент учен",
    "course": "kurs kursu ders kuliah kursus tanfolyam kurzus curs μαθημα курс",
    "grade": "ocen ocena znamk nilai osztalyz βαθμ оценк оцінк",
    "register": "zapis zapisz kayit daftar beiratkoz inscri εγγραφ записа зарахув",
    "court": "soud sadu mahkeme pengadil birosag instant tribunal δικαστ суд",
    "submit": "zloz podat podej ajukan benyujt depune υποβολ подат подай",
    "sign": "podpis imzala tandatang alair semna υπογραφ подпис підпис",
    "shipment": """przesylk wysylk zasilk sevkiyat kargo pengirim szallitm expedier αποστολ
        отправк вантаж груз""",
    "customs": "celn celni gumruk cukai vamkezel vama τελων тамож митн",
    "declaration": "zgloszen prohlasen beyanname pemberitahu nyilatkozat declarat δηλωσ деклара",
    "assign": "przypisz przydziel prirad atayin tugaskan hozzarendel atribu αναθεσ назнач признач",
    "confirm": "potwierdz potvrd potvrdit konfirmasi megerosit confirm επιβεβαι подтверд підтверд",
    "incident": "incydent olay insiden incidens incident περιστατικ инцидент інцидент",
    "release": "wersj verze versiyon versi verzio versiun εκδοσ верси верс",
    "production": "produkcj produkc uretim produksi productie παραγωγ продакшн продакшен",
    "service": "serwis uslug sluzb hizmet layanan szolgaltat servici υπηρεσ сервис сервіс",
    "deal": "transakcj obchod anlasma kesepakat ugylet tranzacti συμφων сделк",
    "quote": "ofert nabidk teklif penawaran arajanlat oferta προσφορ предложен пропозиц",
    "move": "przenies presun tasi pindah athelyez muta μετακιν перенес перемест перенест",
    "pickup": "odbior vyzvednut teslim jemput felvetel ridicare παραλαβ забор забір",
    "freeze": "zablokuj zastrzez zablokovat dondur bloke blokir letilt zarol bloca μπλοκ заблок",
    "extend": "przedluz prodlouz uzat perpanjang meghosszabb prelung παρατασ продл продовж",
    "renew": "odnow obnov yenile memperbarui megujit reinnoi ανανεω",
    "lease": "najem najm najmu pronajem kira berlet inchiri μισθωσ аренд оренд",
    "apartment": "mieszkan byt daire apartemen lakas apartament διαμερισμ квартир",
    "roaming": "roaming dolasim περιαγωγ роуминг роумінг",
    "trip": "podroz wyjazd cesta seyahat perjalanan utazas calatori ταξιδ поездк поїздк",
    "plan": "taryf tarif abonament προγραμμ тариф",
    "employee": """pracownik zamestnan calisan karyawan pegawai munkavallal angajat υπαλληλ
        сотрудник працівник""",
    "missing": "brak brakuj chyb eksik kurang hianyz lipse λειπ нехват бракує",
    "correct": "popraw oprav duzelt koreksi javit corect διορθω исправ виправ",
    "viewing": "ogladan prohlidk gorme megnez vizionar επισκεψ осмотр огляд",
}

#: the same languages' words that ask politely or make conversation ("proszę", "lütfen",
#: "tolong"): read as nothing, as ``gloss`` reads the screened languages' function words
MORE_FUNCTION_WORDS = frozenset(
    """
    proszę prosze prosić dziękuję dziekuje dzięki dzieki cześć czesc dzień dzien dobry
    prosím prosim děkuji dekuji díky diky ahoj dobrý dobry den
    lütfen lutfen teşekkürler tesekkurler merhaba misin mısın musun müsün misiniz
    tolong terima kasih mohon halo selamat bisa saya untuk dengan yang
    kérlek kerlek kérem kerem köszönöm koszonom szia szeretném szeretnem
    vă rog multumesc mulțumesc bună buna vreau pentru
    παρακαλώ παρακαλω ευχαριστώ ευχαριστω γεια μπορείς μπορεις
    пожалуйста спасибо прошу будь ласка дякую привіт привет
    """.split()  # noqa: SIM905
)
#: letters no decomposition takes the mark off ("ł" of Polish, "ı" of Turkish), read plain
PLAIN_LETTERS = str.maketrans({"ł": "l", "ı": "i", "đ": "d"})
