"""Polish, Turkish, Russian, Ukrainian, Arabic and Hindi tables for ``digest.reflect.lexicon``."""

_PL = r"""
NEG \b(?:nie|nigdy|żadn\w*|nic|nikomu|nikt\w*)\b
QUAL \b(?:poprzedni|wcześniejsz|powyższ|wszystki|pierwotn|początkow|systemow|swoj|twoj|dotychczasow
 |stare)\w*
OLD \b(?:poprzedni|wcześniejsz|powyższ|pierwotn|początkow|dotychczasow|stare)\w*
NOUN \b(?:instrukcj|poleceni|poleceń|reguł|zasad|wytyczn|prompt|rozkaz)\w*
IGN \b(?:zignoruj|ignoruj|zapomnij|pomiń|porzuć|odrzuć|olej)(?:cie)?\b
IGNX \bzapomnij(?:cie)?\b~10\bo wszystkim\b
NOFOLLOW \bnie (?:stosuj|przestrzegaj|wykonuj|słuchaj|trzymaj się|kieruj się)(?:cie)?\b
 |\bprzestań(?:cie)?\b~10\b(?:stosować|przestrzegać|wykonywać|słuchać)\b
VOID (?:\b(?:są|zostały|została|jest)\b%15(?:nieaktualn|nieważn|uchylon|anulowan|zastąpion|odwołan
 |wycofan|przestarzał)\w*|\b(?:już )?nie obowiązuj\w*|\bprzestały obowiązywać\b)
PROMPT \bprompt\w* systemow\w*|\bsystemow\w* prompt\w*|\bkomunikat\w* systemow\w*|\b(?:ukryt|tajn
 |wewnętrzn|systemow|początkow)\w* (?:instrukcj|poleceń|poleceni|konfiguracj|ustawie)\w*|\b(?:swoj
 |twoj|wasz)\w* (?:konfiguracj|ustawie|instrukcj|zasad)\w*
SECRET \bhas(?:ł\w*|eł)|\bdane logowania\b|\bdane uwierzytelniając\w*|\bklucz\w* (?:api|prywatn\w*
 |tajn\w*|dostępu)|api[ _-]?keys?|\btoken\w*|\bzmienn\w* środowiskow\w*|\bsekret\w*
SHOW \b(?:ujawnij|pokaż|wyświetl|wypisz|wydrukuj|powiedz|zdradź|udostępnij|przekaż)(?:cie)?\b
 |\bpodaj(?:cie)? mi\b
ECHO \b(?:powtórz|napisz|podaj)(?:cie)?\b
SEND \b(?:wyślij|prześlij|przekaż|skopiuj|załaduj|wrzuć|opublikuj)(?:cie)?\b|\b(?:udw|bcc|cc)\b
 |\bdodaj(?:cie)?\b~20\bdo (?:ukrytej )?kopii\b
DATA \bhistori\w*|\brozmow\w*|\bkonwersacj\w*|\bczat\w*|\btranskrypcj\w*|\bdane (?:klient\w*|osobowe
 |użytkownik\w*)|\bwszystkie dane\b|\bbaz\w* danych\b|\brekord\w*|\bwszystkie (?:wiadomości
 |odpowiedzi|maile|e-maile)|\bkażd\w* (?:odpowied\w*|wiadomoś\w*)|\bdane logowania\b|\bhasła\b
 |\bwszystko(?= na\b)
RECUR \bod (?:teraz|tej chwili|dziś|dzisiaj)\b|\bodtąd\b|\bzawsze\b|za każdym razem
 |\bkażd\w* (?:odpowied\w*|wiadomoś\w*)|\bw przyszłości\b
ROLE \badministrator\w*|\badmin\w*|\broot\b|\bsuperużytkownik\w*|\bdeweloper\w*|\bprogramist\w*
 |\bdan\b|\bbez (?:ograniczeń|zasad|filtrów|reguł|cenzury)
LOGIN zalogowan|połączon
FROMNOW \b(?:od (?:teraz|tej chwili|dziś|dzisiaj)|odtąd)\b
YOUARE \b(?:jesteś|jest pan|jesteście|słuchasz|słuchaj|pracujesz dla|wykonujesz|odpowiadasz przed
 |będziesz)\b
YOUARENOW \b(?:teraz jesteś|jesteś teraz|jesteś od teraz)\b
ACTAS \b(?:zachowuj się|działaj|wciel się|odgrywaj|graj rolę)\b
PERSONAX \budawaj(?:cie)?\b|\b(?:twoja|pana) nowa rola\b|\bnie pracujesz (?:już )?dla\b
MODE \btryb\w* (?:deweloper\w*|programist\w*|boga|administrator\w*|jailbreak|dan|bez ograniczeń)
ON \b(?:włączon|aktywn|aktywowan)\w*
ENABLE \b(?:włącz|aktywuj)(?:cie)?\b
PN \b(?:zgod|zatwierdzeni|akceptacj|weryfikacj|autoryzacj|potwierdzeni|identyfikacj|tożsamoś|kontrol
 |paragon|dowód zakupu|limit|ograniczeni)\w*
NOLONGER \bjuż nie (?:wymaga|potrzebuj|potrzeba|jest|są|będ)\w*|\bnie (?:wymaga|potrzebuj|jest|są
 |będ)\w* już\b
NOLONGERF \b(?:już nie jest|nie jest już|już nie są|nie są już)\b%10(?:potrzebn|wymagan|konieczn
 |obowiązkow)
LIFTED \b(?:został\w*|jest)\b%10(?:zniesion|usunięt|wyłączon|uchylon|anulowan|zawieszon)\w*
ALLCUST \b(?:wszyscy klienci|każdy klient)\b
GET \b(?:otrzymują|otrzymuje|dostają|dostaje|mają prawo|ma prawo)\b
PERK rabat|zniżk|zwrot|gratis|za darmo
WITHOUT \bbez\b
CMD \b(?:polecen|komend|skrypt|powłok|terminal|konsol)\w*|\b(?:bash|powershell|shell)\b
RUN \b(?:wykonaj|uruchom|odpal|wpisz)(?:cie)?\b
DN \b(?:dan|rekord|plik|klient|użytkownik|kont|zamówie|wiadomoś|tabel|kopi\w* zapasow|backup|e-?mail
 |log|katalog|projekt)\w*
ALL \bwszystk\w*
DEL \b(?:usuń|skasuj|wyczyść|wymaż|zniszcz|opróżnij)(?:cie)?\b
DB \b(?:całą )?baz\w* danych\b
CALL \b(?:wywołaj|użyj|uruchom)(?:cie)?\b
"""

_TR = r"""
NEG \b(?:asla|sakın|hiçbir|hiç|değil)\b
QUAL \b(?:önceki|yukarıdaki|ilk|orijinal|sistem|tüm|bütün|eski|mevcut)\w*
OLD \b(?:önceki|yukarıdaki|ilk|orijinal|eski)\w*
NOUN \b(?:talimat|kural|yönerge|istem|prompt|emir|yönlendirme|direktif)\w*
IGNF \b(?:yok ?say|görmezden gel|unut|dikkate alma|önemseme|atla)(?:ın|in|un|ün|ınız|iniz|unuz
 |ünüz)?\b
NOFOLLOWF \b(?:uyma|uymayın|takip etme|takip etmeyin|dinleme|dinlemeyin|uygulama|uygulamayın)\b
VOID \b(?:geçersiz\w*|iptal edil\w*|kaldırıld\w*|artık geçerli değil\w*|eskidi\w*
 |geçerliliğini yitirdi\w*)
PROMPT \bsistem (?:istem|mesaj|talimat|prompt)\w*|\bgizli (?:talimat|istem|yapılandırma|ayar)\w*
 |\b(?:yapılandırman|ayarların|talimatların)\w*
SECRET \b(?:şifre|parola)\w*|\bkimlik bilgi\w*|\bapi (?:anahtar|key)\w*|\b(?:erişim )?token\w*
 |\bortam değişken\w*|\b(?:gizli|özel) anahtar\w*
SHOWF \b(?:göster|açıkla|ifşa et|yazdır|söyle|paylaş|sızdır|listele|dök)(?:in|ın|iniz|ınız|sene
 |ir misin|ir misiniz|er misin|er misiniz)?\b
SEND \b(?:gönder|ilet|yönlendir|kopyala|aktar|paylaş|bcc|cc)(?:in|ın|iniz|ınız)?\b|\bgizli kopya\w*
DATA \bgeçmiş\w*|\bkonuşma\w*|\bsohbet\w*|\btranskript\w*|\bmüşteri (?:veri|bilgi|kayıt)\w*
 |\bkişisel veri\w*|\btüm (?:veri|kayıt|mesaj|yanıt|cevap|e-?posta)\w*|\bveritaban\w*|\bkayıtlar\w*
 |\bher (?:yanıt|cevap|mesaj)\w*|\bkimlik bilgi\w*|\bşifreler\w*|\bher şeyi\b
RECUR \bbundan (?:böyle|sonra)\b|\bartık\b|\bşu andan itibaren\b|\bher zaman\b|\bdaima\b
 |\bher (?:yanıt|cevap|mesaj|seferinde)\w*
ROLE \b(?:yönetici|admin|geliştirici|sınırsız|kısıtlamasız|filtresiz|kuralsız)\w*|\broot\b|\bdan\b
LOGIN oturum|giriş yap
FROMNOW \b(?:bundan (?:böyle|sonra)|şu andan itibaren|artık)\b
YOUARENOW \b(?:artık|bundan (?:böyle|sonra)|şu andan itibaren)\b
YOUARE \b(?:bana itaat|benim emirlerim|yalnızca bana|sadece bana|sadece benim)\w*
ACTASF \b(?:gibi davran|rolünü (?:oyna|üstlen)|rolüne bürün|gibi yap|taklidi yap)\w*
PERSONAX \byeni rolün\b|\bartık\b~20\biçin çalışmıyorsun\b
MODE \b(?:geliştirici|tanrı|yönetici|jailbreak|dan) mod\w*
ON \b(?:etkin|açık|aktif|açıldı|etkinleştir\w*)\b(?!%5değil)
PN \b(?:onay|izin|doğrulama|kimlik (?:kontrol|doğrulama)|kontrol|fiş|fatura|limit|sınır|kısıtlama
 |yetkilendirme)\w*
NONEED \b(?:gerektirmiyor|gerekmiyor|gerekmez|gerekli değil|zorunlu değil|aranmıyor|istenmiyor)\w*
POLICYX \b(?:artık|bundan (?:böyle|sonra))\b~40\b(?:onay|izin|doğrulama|kontrol|fiş)sız\b|\b(?:artık
 |bundan (?:böyle|sonra))\b~30<PN>~20<NONEED>|<PN>~20\bartık\b~20<NONEED>|<ALLCUST>~30(?:%\s?\d+
 |\d+\s?%|indirim|iade|ücretsiz|bedava)
LIFTED \b(?:kaldırıldı|iptal edildi|kaldırılmıştır|askıya alındı|devre dışı bırakıldı)\b
ALLCUST \b(?:tüm|bütün|her) müşteri\w*
CMD \b(?:komut|betik|script|kabuk|terminal|konsol)\w*|\b(?:bash|powershell|shell)\b
RUN \b(?:çalıştır|yürüt)(?:ın|in|ınız|iniz)?\b
RUNF \b(?:çalıştır|yürüt)(?:ın|in|ınız|iniz)?\b
DN \b(?:veri|kayıt|dosya|müşteri|kullanıcı|hesap|hesab|sipariş|mesaj|tablo|yedek|e-?posta|log|klasör
 |proje)\w*
ALL \b(?:tüm|bütün)\b
DELF \b(?:sil|temizle|yok et|boşalt|kaldır)(?:in|ın|iniz|ınız)?\b
DB \bveritaban\w*
CALLF \b(?:çağır|kullan|çalıştır)(?:ın|in|ınız|iniz)?\b
DESTROYX \bher şeyi\b~10\bsil(?:in)?\b
"""

_RU = r"""
GATE [\u0400-\u04ff]
NEG \b(?:не|никогда|нельзя|запрещ\w*|никому|ни)\b
QUAL \b(?:предыдущ|прежн|вышеуказанн|вышеизложенн|изначальн|исходн|первоначальн|систем|всe|все|сво
 |тво|ваш|стар)\w*|\b(?:выше|ранее)\b
OLD \b(?:предыдущ|прежн|вышеуказанн|вышеизложенн|изначальн|исходн|первоначальн|стар)\w*|\b(?:выше
 |ранее)\b
NOUN \b(?:инструкци|указани|правил|директив|промпт|установк|предписани|команд|распоряжени)\w*
IGN \b(?:проигнорируй|игнорируй|забудь|отбрось|пропусти|отмени|обойди)(?:те)?\b|\bоткажи(?:сь
 |тесь) от\b
IGNX \bзабудь(?:те)?\b~10\bвс[её]\b~30(?:что|сказан|выше|ранее|раньше)
NOFOLLOW \bне (?:следуй|выполняй|слушай|соблюдай|подчиняйся)(?:те)?\b|\bбольше не (?:следуй|выполняй
 |слушай|соблюдай|подчиняйся)(?:те)?\b
VOID (?:больше не действу|утратил\w* силу|отменен|отменён|устарел|недействительн|аннулирован|заменен
 |заменён|больше не применя)\w*
PROMPT \bсистемн\w* (?:промпт|подсказк|инструкци|сообщени)\w*|\b(?:скрыт|секретн|внутренн|исходн
 |первоначальн)\w* (?:инструкци|промпт|настройк|конфигураци)\w*|\b(?:сво|тво|ваш)\w* (?:инструкци
 |настройк|конфигураци|правил|промпт)\w*
SECRET \bпарол\w*|\bучётн\w* данн\w*|\bучетн\w* данн\w*|\bapi[ _-]?(?:ключ|keys?)\w*
 |\bключ\w* (?:api|доступа)|\bтокен\w*|\bпеременн\w* окружени\w*|\bсекрет\w*|\bприватн\w* ключ\w*
SHOW \b(?:покажи|раскрой|выведи|распечатай|напечатай|скажи|сообщи|назови|дай|поделись|поделитесь
 |выдай|слей|перечисли|отправь|озвучь)(?:те)?\b
ECHO \b(?:повтори|напиши)(?:те)?\b
SEND \b(?:отправь|отправляй|перешли|пересылай|скопируй|выгрузи|передай|передавай|опубликуй)(?:те)?\b
 |\b(?:bcc|cc)\b|\b(?:поставь|добавь)(?:те)?\b~20\bв (?:скрытую )?копию\b
DATA \bистори\w*|\bпереписк\w*|\bдиалог\w*|\bразговор\w*|\bчат\w*|\bстенограмм\w*|\bтранскрипт\w*
 |\bданн\w* (?:клиент|пользовател|покупател)\w*|\bперсональн\w* данн\w*|\bвсе данные\b
 |\bбаз\w* данных\b|\bзапис\w* клиент\w*|\bвсе (?:сообщени|письм|ответ|записи)\w*|\bкажд\w* (?:ответ
 |сообщени|письм)\w*|\bучётн\w* данн\w*|\bучетн\w* данн\w*|\bпарол\w*|\bвс[её](?= на\b)
RECUR \bс (?:этого момента|сегодняшнего дня)\b|\bотныне\b|\bвпредь\b|\bвсегда\b|\bкаждый раз\b
 |\bкажд\w* (?:ответ|сообщени|письм)\w*|\bв дальнейшем\b
ROLE \b(?:администратор|админ|суперпользовател|разработчик)\w*|\broot\b|\bdan\b|\bбез (?:ограничений
 |правил|фильтров|цензуры)\b
LOGIN вош|авторизован|подключен|залогинен
FROMNOW \b(?:с (?:этого|текущего) момента|отныне|впредь|теперь)\b
YOUARE \b(?:ты|вы)\b~15(?:подчиняешься|подчиняетесь|слушаешься|слушаетесь|работаешь на|работаете на
 |выполняешь только|служишь)|\b(?:ты|вы)\b~10<ROLE>
YOUARENOW \b(?:ты|вы) теперь\b
ACTAS \b(?:веди себя|ведите себя|действуй|действуйте|сыграй роль|играй роль|выдай себя за)\b
PERSONAX \b(?:притворись|притворитесь|прикинься|прикиньтесь|представь,? что ты
 |представьте,? что вы)\b|\b(?:твоя|ваша) новая роль\b|\b(?:ты|вы) больше не работа\w* на\b
MODE \bрежим\w* (?:разработчик\w*|бога|администратор\w*|jailbreak|dan|без ограничений)
ON \b(?:включ[её]н|активирован|активен)\w*
ENABLE \b(?:включи|активируй)(?:те)?\b
PN \b(?:одобрени|согласовани|утверждени|подтверждени|проверк|верификаци|идентификаци|лимит
 |ограничени|авторизаци|чек|квитанци)\w*
NOLONGER \bбольше не (?:требу|нуж|обязател|необходим)\w*
NOLONGERF \bбольше не (?:требу|нуж|обязател|необходим|провер)\w*
LIFTED \b(?:был\w* |теперь )?(?:снят|отменен|отменён|упразднен|упразднён|убран|удален|удалён)\w*
ALLCUST \b(?:все|каждый) (?:клиент|покупател)\w*
GET \b(?:получа|име\w* право)\w*
PERK скидк|возврат|бесплатн
POLICYX \b(?:теперь|отныне|с этого момента)\b~30\b(?:не требу|не нуж|без)\w*~20<PN>
CMD \b(?:команд|скрипт|сценари|оболочк|терминал|консол)\w*|\b(?:bash|powershell|shell)\b
RUN \b(?:выполни|запусти|исполни)(?:те)?\b
RUNX \bскачай(?:те)?\b~40\b(?:запусти|выполни)(?:те)?\b
DN \b(?:данн|запис|файл|клиент|пользовател|аккаунт|заказ|сообщени|таблиц|резервн\w* копи|бэкап|письм
 |лог|папк|каталог|проект)\w*
ALL \bвс[её]\w*
DEL \b(?:удали|сотри|очисти|уничтожь|снеси)(?:те)?\b
DB \b(?:всю )?баз\w* данных\b
CALL \b(?:вызови|используй|запусти)(?:те)?\b
DESTROYX \b(?:удали|сотри|уничтожь)(?:те)?\b~5\bвс[её]\b
"""

_UK = r"""
GATE [\u0400-\u04ff]
NEG \b(?:не|ніколи|заборон\w*|ні|нікому)\b
QUAL \b(?:попередн|колишн|вищезазначен|початков|вихідн|системн|всі|сво|тво|ваш|стар)\w*|\b(?:вище
 |раніше)\b
OLD \b(?:попередн|колишн|вищезазначен|початков|вихідн|стар)\w*|\b(?:вище|раніше)\b
NOUN \b(?:інструкці|вказівк|правил|директив|промпт|настанов|команд|розпоряджен)\w*
IGN \b(?:ігноруй|проігноруй|забудь|відкинь|пропусти|пропустіть|скасуй|обійди|обійдіть)(?:те)?\b
IGNX \bзабудь(?:те)?\b~10\bвсе\b~30(?:що|сказан|вище|раніше)
NOFOLLOW \b(?:не|більше не) (?:дотримуйся|дотримуйтеся|виконуй|слухай|слухайся|зважай)(?:те)?\b
VOID (?:більше не ді|втратил\w* чинн|скасован|застаріл|недійсн|анульован|замінен)\w*
PROMPT \bсистемн\w* (?:промпт|підказк|інструкці|повідомлен)\w*|\b(?:прихован|секретн|внутрішн
 |початков)\w* (?:інструкці|промпт|налаштуван|конфігураці)\w*|\b(?:сво|тво|ваш)\w* (?:інструкці
 |налаштуван|конфігураці|правил|промпт)\w*
SECRET \bпарол\w*|\bоблікові дані\b|\bоблікових даних\b|\bapi[ _-]?(?:ключ|keys?)\w*
 |\bключ\w* (?:api|доступу)|\bтокен\w*|\bзмінн\w* середовища\b|\bсекрет\w*|\bприватн\w* ключ\w*
SHOW \b(?:покажи|покажіть|розкрий|виведи|виведіть|роздрукуй|надрукуй|скажи|скажіть|повідом|назви
 |назвіть|дай|поділися|поділіться|видай|злий|перелічи|перелічіть|надішли|надішліть)(?:те)?\b
ECHO \b(?:повтори|повторіть|напиши|напишіть)(?:те)?\b
SEND \b(?:надішли|надішліть|відправ|перешли|перешліть|пересилай|скопіюй|вивантаж|передай|передавай
 |опублікуй)(?:те)?\b|\b(?:bcc|cc)\b|\bдодай(?:те)?\b~20\bв (?:приховану )?копію\b
DATA \bісторі\w*|\bлистуван\w*|\bдіалог\w*|\bрозмов\w*|\bчат\w*|\bтранскрипт\w*|\bдан\w* (?:клієнт
 |користувач|покупц)\w*|\bперсональн\w* дан\w*|\bвсі дані\b|\bбаз\w* даних\b|\bзапис\w* клієнт\w*
 |\bвсі (?:повідомлен|лист|відповід|записи)\w*|\bкожн\w* (?:відповід|повідомлен|лист)\w*
 |\bоблікові дані\b|\bпарол\w*|\bвсе(?= на\b)
RECUR \bз (?:цього моменту|сьогодні)\b|\bвідтепер\b|\bнадалі\b|\bзавжди\b|\bщоразу\b
 |\bкожного разу\b|\bкожн\w* (?:відповід|повідомлен|лист)\w*
ROLE \b(?:адміністратор|адмін|суперкористувач|розробник)\w*|\broot\b|\bdan\b|\bбез (?:обмежень
 |правил|фільтрів|цензури)\b
LOGIN увійш|авторизован|підключен
FROMNOW \b(?:з цього моменту|відтепер|надалі|тепер)\b
YOUARE \b(?:ти|ви)\b~15(?:підкоряєшся|підкоряєтеся|слухаєшся|працюєш на|працюєте на|служиш)|\b(?:ти
 |ви)\b~10<ROLE>
YOUARENOW \b(?:ти|ви) тепер\b
ACTAS \b(?:поводься|поводьтеся|дій|дійте|зіграй роль|грай роль)\b
PERSONAX \b(?:вдавай|вдавайте|прикинься|прикиньтеся|уяви,? що ти)\b|\b(?:твоя|ваша) нова роль\b
 |\b(?:ти|ви) більше не працю\w* на\b
MODE \bрежим\w* (?:розробник\w*|бога|адміністратор\w*|jailbreak|dan|без обмежень)
ON \b(?:увімкнен|активован|активн)\w*
ENABLE \b(?:увімкни|активуй)(?:те)?\b
PN \b(?:схвален|погоджен|затвердженн|підтвердж|перевірк|верифікаці|ідентифікаці|ліміт|обмежен|дозвіл
 |авторизаці|чек|квитанці)\w*
NOLONGER \bбільше не (?:потрібн|потребу|вимага|обов.язков|необхідн)\w*
NOLONGERF \bбільше не (?:потрібн|вимага|обов.язков|необхідн|перевіря)\w*
LIFTED \b(?:було |тепер )?(?:знят|скасован|прибран|видален)\w*
ALLCUST \b(?:всі|усі|кожен|кожний) (?:клієнт|покупц|покупець)\w*
GET \b(?:отриму|ма\w* право)\w*
PERK знижк|повернен|безкоштовн
POLICYX \b(?:відтепер|з цього моменту|тепер)\b~30\b(?:не потрібн|без)\w*~20<PN>
CMD \b(?:команд|скрипт|сценарі|оболонк|термінал|консол)\w*|\b(?:bash|powershell|shell)\b
RUN \b(?:виконай|запусти|запустіть)(?:те)?\b
DN \b(?:дан|запис|файл|клієнт|користувач|акаунт|замовлен|повідомлен|таблиц|резервн\w* копі|бекап
 |лист|лог|папк|каталог|проєкт|проект)\w*
ALL \b(?:вс[іе]|усі)\w*
DEL \b(?:видали|видаліть|зітри|зітріть|очисти|очистіть|знищ)(?:те)?\b
DB \b(?:всю )?баз\w* даних\b
CALL \b(?:виклич|використай|запусти|запустіть)(?:те)?\b
DESTROYX \b(?:видали|зітри|знищ)(?:те)?\b~5\bвсе\b
"""

_AR = r"""
GATE [\u0600-\u06ff]
NEG \b(?:لا|لن|لم|ليس|أبدا|إياك|ممنوع|يمنع|يحظر)\b
QUAL (?:السابقة|السابق|أعلاه|الأصلية|الأولية|النظام|جميع|كل|كافة|القديمة)
OLD (?:السابقة|السابق|أعلاه|الأصلية|الأولية|القديمة)
NOUN (?:التعليمات|تعليمات|الإرشادات|إرشادات|القواعد|قواعد|الأوامر|أوامر|التوجيهات|توجيهات|الموجه)
IGN \b[وف]?(?:تجاهل\w*|أهمل\w*|انس[َىي]?|انسوا|تناس\w*|تخط\w*)
NOFOLLOW \b(?:لا|لم ?تعد) (?:تتبع|تلتزم|تطع|تطيع|تنفذ)\w*|\b(?:توقف|كف) عن (?:اتباع|الالتزام
 |تنفيذ)\b
VOID (?:لم تعد (?:سارية|صالحة|مطبقة)|ملغاة|ملغية|ألغيت|تم (?:إلغاؤها|إلغاء|استبدال)|باطلة)
PROMPT (?:موجه|تعليمات|رسالة|برومبت) النظام|(?:التعليمات|الإعدادات|الأوامر) (?:المخفية|السرية
 |الداخلية|الأصلية)|(?:إعداداتك|تعليماتك|تكوينك|قواعدك)
SECRET كلم(?:ة|ات) (?:المرور|السر)|بيانات (?:الاعتماد|الدخول)|مفاتيح api|مفتاح (?:api|الواجهة|سري
 |خاص)|api[ _-]?keys?|الرمز المميز|رمز الوصول|\btoken\b|توكن|متغيرات البيئة|الأسرار
SHOW \b[وف]?(?:اعرض|اكشف|أظهر|اطبع|أخبرني|قل لي|شارك|أعطني|سرب|أفصح عن|أرسل لي)
ECHO \b[وف]?(?:كرر|اكتب)
SEND \b[وف]?(?:أرسل|أعد توجيه|انسخ|ارفع|انشر|مرر)|\b(?:ضع|أضف)\b~20\bنسخة\b|\b(?:bcc|cc)\b
DATA سجل (?:المحادثة|المحادثات|الدردشة)|المحادثة|المحادثات|الدردشة|النص الكامل|بيانات (?:العملاء
 |العميل|المستخدمين|شخصية)|(?:جميع|كل) البيانات|قاعدة البيانات|سجلات العملاء|جميع (?:الرسائل|الردود
 |السجلات)|كل (?:رسالة|رد|الرسائل|الردود)|بيانات الاعتماد|كلمات المرور|كل شيء
RECUR من الآن(?: فصاعدا)?|ابتداء من الآن|بعد الآن|دائما|في كل (?:مرة|رد|رسالة)|كل (?:رد|رسالة)
 |مستقبلا
ROLE (?:مسؤول|المسؤول|مدير النظام|admin|root|المطور|مطور|dan|بلا قيود|بدون قيود|دون قيود)
LOGIN مسجل|تسجيل الدخول|متصل
FROMNOW (?:من الآن(?: فصاعدا)?|ابتداء من الآن|بعد الآن)
YOUARE (?:أنت|انت|ستكون)~10<ROLE>|(?:تطيع|ستطيع|أطعني|تعمل لصالح|تعمل لدى|ستعمل لصالح)
YOUARENOW (?:أنت|انت) (?:الآن|الان)
ACTAS \b[وف]?(?:تصرف|تصرفي|العب دور|مثل دور|تقمص)
PERSONAX \bتظاهر\w*|دورك الجديد|لم تعد تعمل (?:لصالح|لدى)
MODE وضع (?:المطور|الإله|المسؤول|jailbreak|dan|بلا قيود)
ON (?:مفعل|مفعّل|تم تفعيل|قيد التشغيل|نشط)
ENABLE \b(?:فعّل|فعل|شغّل|شغل)\b
PN (?:موافقة|الموافقة|اعتماد|التحقق|تحقق|التأكيد|إيصال|فاتورة|الهوية|الحد|الحدود|القيود|إذن|تصريح)
NOLONGER لم (?:يعد|تعد)~20(?:هناك حاجة|من الضروري|مطلوبا?|ضروريا?|يلزم|يتطلب|تتطلب|يحتاج|تحتاج)
NOLONGERF لم (?:يعد|تعد) (?:مطلوب|ضروري|لازم|إلزامي)
POLICYX (?:تم )?(?:إلغاء|رفع|إزالة) (?:الحد|القيود|الموافقة|التحقق|شرط)
ALLCUST (?:جميع|كل) العملاء
GET (?:يحصلون|يحصل|يحق|سيحصلون)
PERK خصم|استرداد|مجان
WITHOUT (?:بدون|دون)
CMD (?:الأمر|أمر|الأوامر|أوامر|سكربت|السكربت|البرنامج النصي|نص برمجي|الطرفية|سطر الأوامر)|\b(?:bash
 |powershell|shell)\b
RUN \b[وف]?(?:نفذ|شغل|قم بتشغيل|قم بتنفيذ)
DN (?:البيانات|السجلات|الملفات|العملاء|المستخدمين|الحسابات|الطلبات|الرسائل|الجداول|النسخ الاحتياطية
 |المجلدات|المشاريع)
ALL (?:جميع|كل|كافة)
DEL \b[وف]?(?:احذف|امسح|أفرغ|دمر|أزل|قم بحذف|قم بمسح)
DB قاعدة البيانات
CALL \b[وف]?(?:استدع\w*|استخدم|شغل|نفذ)
"""

_HI = r"""
GATE [\u0900-\u097f]
NEG (?<!\S)(?:नहीं|मत|न|ना|कभी|मना)(?!\S)
POST (?<!\S)(?:नहीं|मत|न|ना)(?!\S)
QUAL (?:पिछले|पिछली|पूर्व|पहले|ऊपर|उपरोक्त|सभी|सारे|सिस्टम|मूल|प्रारंभिक|अपने)
OLD (?:पिछले|पिछली|पूर्व|पहले|ऊपर|उपरोक्त|मूल|प्रारंभिक)
NOUN (?:निर्देश|नियम|आदेश|हिदायत|प्रॉम्प्ट|प्रोम्प्ट|दिशानिर्देश|गाइडलाइन)
IGNF (?:अनदेखा|नज़रअंदाज़|नजरअंदाज|उपेक्षा|दरकिनार) (?:करें|करो|कीजिए|कर दो|कर दें)<HIEND>
 |भूल (?:जाओ|जाइए|जाएं)<HIEND>
NOFOLLOWF (?:पालन|अनुसरण)~6(?:न करें|मत करो|मत करें|न करो|बंद करो|बंद करें)
VOID (?:अब (?:मान्य|लागू) नहीं|रद्द|अमान्य|निरस्त|समाप्त कर दिए)
PROMPT सिस्टम (?:प्रॉम्प्ट|प्रोम्प्ट|संदेश|निर्देश)|(?:छिपे|छुपे|गुप्त|आंतरिक) (?:हुए )?(?:निर्देश
 |प्रॉम्प्ट|सेटिंग)|(?:अपने|अपनी|तुम्हारे|तुम्हारी|आपके|आपकी) (?:निर्देश|कॉन्फ़िगरेशन|सेटिंग्स|नियम)
SECRET पासवर्ड|क्रेडेंशियल|एपीआई (?:की|कुंजी)|api[ _-]?(?:keys?|की|कुंजी)|टोकन|\btoken\b
 |एनवायरनमेंट वेरिएबल|गुप्त कुंजी|सीक्रेट
SHOWF (?:दिखा|बता|प्रकट|उजागर|प्रिंट|साझा|शेयर|लीक)\S*<HIEND>|(?:दे दो|दे दें|दीजिए)<HIEND>
HIEND (?![^\s।])(?! (?:गय|गए|गई|जा |जात|था|थे|थी|चुक|रह|सक|दिय|दी |दिए|है|हैं))
SEND (?:भेज|फॉरवर्ड|अग्रेषित|कॉपी|अपलोड|प्रेषित|बीसीसी)\S*<HIEND>|\b(?:bcc|cc)\b
DATA इतिहास|बातचीत|चैट|वार्तालाप|ट्रांसक्रिप्ट|ग्राहक (?:डेटा|डाटा|जानकारी|रिकॉर्ड)|उपयोगकर्ता डेटा
 |व्यक्तिगत डेटा|(?:सारा|सभी) डेटा|डेटाबेस|सभी (?:संदेश|जवाब|उत्तर|रिकॉर्ड|ईमेल)|हर (?:जवाब|उत्तर
 |संदेश)|क्रेडेंशियल|पासवर्ड|सब कुछ
RECUR अब से|आज से|इसके बाद से|हमेशा|हर बार|हर (?:जवाब|उत्तर|संदेश)|आगे से
ROLE (?:एडमिन|व्यवस्थापक|प्रशासक|रूट|root|admin|डेवलपर|dan|बिना (?:किसी )?(?:प्रतिबंध|रोक|नियम|सीमा
 |फ़िल्टर))
LOGIN लॉग इन|लॉगिन|कनेक्ट
FROMNOW (?:अब से|आज से|आगे से)
YOUARE (?:तुम|आप)~30(?:<ROLE>|मेरी बात मान|मेरा आदेश|केवल मेरी|सिर्फ मेरी|के लिए काम)
YOUARENOW (?:तुम|आप) अब
ACTASF (?:की तरह|के रूप में) (?:व्यवहार|काम|बर्ताव|अभिनय) कर|की भूमिका निभा
PERSONAX (?:होने का )?(?:नाटक|ढोंग|दिखावा) कर|(?:तुम्हारी|आपकी) नई भूमिका
MODE (?:डेवलपर|गॉड|भगवान|एडमिन|jailbreak|dan) मोड
ON (?:सक्रिय|चालू|ऑन|एनेबल)(?!%8नहीं)
PN (?:अनुमोदन|मंजूरी|मंज़ूरी|स्वीकृति|अनुमति|सत्यापन|पुष्टि|पहचान|जांच|जाँच|रसीद|सीमा|लिमिट
 |प्रतिबंध)
POLICYX अब~30<PN>~20(?:आवश्यकता|ज़रूरत|जरूरत|आवश्यक)~15नहीं|<PN>~30(?:आवश्यकता|ज़रूरत|जरूरत
 |आवश्यक)~15अब नहीं|<PN>~30(?:की )?(?:जरूरत|ज़रूरत|आवश्यकता) नहीं रही|सभी ग्राहकों को~30(?:\d+\s?%
 |छूट|रिफंड|मुफ्त|मुफ़्त)
LIFTED (?:हटा दी गई|हटा दिया गया|हटा दी|समाप्त कर दी|खत्म कर दी|हटाई गई|रद्द कर दी)
WITHOUT बिना
CMD (?:कमांड|स्क्रिप्ट|शेल|टर्मिनल)|\b(?:bash|powershell|shell)\b
RUNF (?:चलाओ|चलाएं|चलाइए|चला दो|चला दें|रन करो|रन करें|निष्पादित करें|निष्पादित करो|एक्जीक्यूट करें
 |एक्जीक्यूट करो)<HIEND>
DN (?:डेटा|डाटा|रिकॉर्ड|फाइल|फ़ाइल|ग्राहक|उपयोगकर्ता|खाते|ऑर्डर|संदेश|टेबल|बैकअप|ईमेल|लॉग|फ़ोल्डर)
ALL (?:सभी|सारे|सारा|पूरा|पूरी)
DB डेटाबेस
DELF (?:हटा दो|हटा दें|हटाओ|हटाएं|मिटा दो|मिटा दें|मिटाओ|मिटाएं|डिलीट करो|डिलीट करें|डिलीट कर दो
 |नष्ट करो|नष्ट करें|साफ़ करो|साफ कर दो|ड्रॉप करो|ड्रॉप करें)<HIEND>
CALLF (?:को )?(?:कॉल करो|कॉल करें|चलाओ|चलाएं|इस्तेमाल करो|इस्तेमाल करें)<HIEND>
"""

LANGUAGES = (_PL, _TR, _RU, _UK, _AR, _HI)
