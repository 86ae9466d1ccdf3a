# ruff: noqa: E501
# (word lists in wide scripts run past the line length)
"""The word classes of the injection tripwire (``digest.reflect.tripwire``), in 25 languages.

A class is a ``|``-separated list of words, English first, then German, French, Spanish,
Portuguese, Italian, Dutch, Polish, Turkish, Russian, Ukrainian, Arabic, Hindi, Vietnamese,
Indonesian, Chinese, Japanese, Korean, Swedish, Czech, Greek, Hebrew, Persian, Thai and
Swahili. Words are written as people write them; the tripwire folds case and drops combining
marks on both sides (``é`` matches ``e``), and a word of a spaced script matches whole words
only, with a ``*`` standing for any ending. Checks combine classes within one sentence (they
never list phrases), so a new wording of the same structure is caught, and a language is added
by adding its words here.
"""

from __future__ import annotations

#: who an attacker addresses: the assistant, the AI, the model (``AI``, ``KI``, ``IA`` only in
#: capitals: elsewhere they are words, "ai" in Italian and Vietnamese)
ROLE = (
    "assistant*|ai assistant|ai agent*|ai model*|language model*|llm*|chatbot*|gpt|chatgpt|claude|gemini|copilot"
    "|assistent*|sprachmodell|asistente*|assistente*|modele de langage|modelo de lenguaje|modello linguistico|taalmodel"
    "|asystent*|sztuczna inteligencja|asistan*|yapay zeka|ассистент*|помощник*|нейросет*|языковая модель|асистент*|помічник*"
    "|مساعد|المساعد|الذكاء الاصطناعي|सहायक|असिस्टेंट|एआई|tro ly|tro ly ao|asisten|kecerdasan buatan|助手|助理|人工智能|机器人"
    "|アシスタント|人工知能|チャットボット|어시스턴트|인공지능|챗봇|språkmodell|umela inteligence|βοηθ*|τεχνητη νοημοσυνη"
    "|עוזר|העוזר|בינה מלאכותית|دستیار|هوش مصنوعی|ผู้ช่วย|เอไอ|ปัญญาประดิษฐ์|msaidizi|akili bandia"
)
ROLE_CAPITALS = r"AI|A\.I\.|KI|IA|ИИ|ШІ|SI|ΤΝ"
#: words before a role that make a sentence addressed to it ("note to the", "for any", "as an")
LEAD = (
    "note to|note for|message to|message for|memo to|attention|dear|hey|hello|if you are|as|as the|as an|instructions for|to the|to any|to all"
    "|for the|for any|for all|for every|hinweis an|hinweis fur|an die|an den|fur die|fur den|liebe*|hallo|als|pour l'|pour le|pour la|pour les|pour tout"
    "|note pour|note a|cher|chere|en tant que|para el|para la|para los|para cualquier|para o|para a|nota para|querido|hola|como|caro|ola|per l'|per il"
    "|nota per|all'|alla|ciao|come|aan de|voor de|voor alle|beste|dla|drogi|uwaga|jako|для|внимание|привет|как|до|як|إلى|عزيزي|تنبيه|بصفتي|प्रिय"
    "|gui|danh cho|voi tu cach|untuk|kepada|perhatian|sebagai|给|致|作为|till|kara|som|pro|mily|pozor|για|προς|προσοχη|ως|אל|בתור|برای|به عنوان"
    "|ถึง|สำหรับ|เรียน|ในฐานะ|kwa|mpendwa|kama"
)
#: words after a role that address it, in languages that put them after ("AIへ", "asistan için")
AFTER = "icin|için|के लिए|को|へ|への|に|には|は|에게|께|는|은"
#: an obligation, after a role ("the assistant must")
MODAL = (
    "must|should|shall|will now|needs to|has to|is required to|is instructed to|is expected to|may now|is to|has already"
    "|muss|soll|sollte|darf|doit|devra|debe|deberá|tiene que|deve|dovra|moet|mag|musi|powinien|powinna|mali|malidir"
    "|должен|должна|обязан|следует|нужно|повинен|мусить|має|يجب|ينبغي|चाहिए|phai|nen|harus|wajib|必须|应该|应当|必要|べき|해야"
    "|måste|ska|bör|musi|by mel|πρεπει|חייב|צריך|باید|ต้อง|ควร|lazima|inapaswa"
)
#: the second person: an attacker speaks to the reader
YOU = (
    "you|yourself|du|dich|dir|tu|te|toi|vous|usted|voce|voces|je|jij|jou"
    "|ty|ciebie|cie|sen|siz|ты|вы|тебя|вас|тебе|вам|ти|ви|أنت|انت|عليك|तुम|आप|तुम्हें|आपको"
    "|ban|kamu|anda|你|您|あなた|お前|너|당신|네가|dig|ni|vy|εσυ|εσεις|אתה|עליך|تو|شما|คุณ|wewe"
)
#: a standing order's time ("from now on"): run text reports what happened once
FROM_NOW = (
    "from now on|going forward|henceforth|from this point on|from this point forward|from here on|for all future|starting now|as of now|next time|in future"
    "|ab sofort|von nun an|ab jetzt|kunftig|zukunftig|in zukunft|ab heute|desormais|dorenavant|a partir de maintenant|a l'avenir|a partir d'aujourd'hui"
    "|a partir de ahora|de ahora en adelante|desde ahora|en adelante|a partir de hoy|a partir de agora|de agora em diante|daqui em diante|daqui para frente"
    "|d'ora in poi|da ora in poi|d'ora in avanti|da adesso|da oggi in poi|vanaf nu|voortaan|van nu af aan|od teraz|odtad|od tej pory|od dzisiaj"
    "|bundan sonra|bundan boyle|bugunden itibaren|отныне|с этого момента|впредь|с сегодняшнего дня|відтепер|з цього моменту|надалі|віднині"
    "|من الآن فصاعدا|من الآن|بعد الآن|अब से|आगे से|आज से|tu nay|tu gio|tu bay gio|ke tu bay gio|mulai sekarang|mulai saat ini|ke depannya"
    "|从现在起|从现在开始|今后|从今以后|从今天起|從現在起|今後|これからは|以後|今日から|次回は|이제부터|앞으로|지금부터|오늘부터|다음부터"
    "|fran och med nu|hadanefter|framover|i fortsattningen|od ted|odted|od nyneska|pristi|απο τωρα|στο εξης|מעכשיו|מהיום|מעתה"
    "|از این به بعد|از حالا|از الان|ต่อจากนี้|นับจากนี้|ตั้งแต่นี้|kuanzia sasa|tangu sasa|kuanzia leo"
    "|これ以降|以降は|from today"
)
#: a habit: "always" in run text is an order for every later turn
ALWAYS = "always|whenever|every time|each time|immer|toujours|siempre|sempre|altijd|zawsze|her zaman|всегда|завжди|دائما|हमेशा|luon luon|selalu|总是|始终|常に|항상|alltid|vzdy|παντα|תמיד|همیشه|เสมอ|daima"
#: verbs that drop the agent's guidance
IGNORE = (
    "ignore*|disregard*|forget|override|bypass|discard|overrule|set aside|pay no attention to|stop following|no longer follow|do not follow|don't follow"
    "|ignorier*|vergiss|vergessen|missachte*|ubergehe|oublie*|neglige*|ne tenez pas compte|ignora*|olvida*|omite|haz caso omiso|no sigas"
    "|ignor*|esqueca|esquece|desconsidere|dimentica*|trascura|non seguire|negeer*|vergeet|zignoruj*|ignoruj*|zapomnij|pomin"
    "|yok say*|gormezden gel*|unut*|dikkate alma|игнорир*|проигнорир*|забудь*|не обращай*|пренебрег*|ігнор*|проігнор*"
    "|تجاهل|انس|إنس|अनदेखा|भूल जाओ|भूल जाएं|नज़रअंदाज़|bo qua|quen|abaikan|lupakan|忽略|无视|無視|忘记|忘掉|不要理会|别管|忘れ|무시|잊어"
    "|ignorera|glom|strunta i|bortse fran|zapomen|nevsimej si|αγνοησε|αγνοηστε|ξεχνα|ξεχαστε|התעלם|תתעלם|שכח|תשכח"
    "|نادیده بگیر|فراموش کن|เพิกเฉย|ไม่ต้องสนใจ|ลืม|puuza|sahau"
    "|supersede*|replace*|take precedence over|takes precedence over|overrides"
)
#: what an agent is told: its instructions, prompt, directives
INSTRUCTIONS = (
    "instruction*|prompt*|system prompt|directive*|guideline*|guidance|programming|system message*|anweisung*|instruktion*|richtlinie*"
    "|vorgaben|systemprompt|consigne*|instrucciones|instruccion|directrices|indicaciones|instrucoes|instrucao|diretrizes|orientacoes"
    "|istruzioni|direttive|linee guida|instructies|richtlijnen|instrukcj*|polecen*|wytyczn*|talimat*|yonerge*|инструкци*|указани*"
    "|директив*|інструкці*|вказівк*|التعليمات|تعليمات|الأوامر|निर्देश*|huong dan|chi dan|chi thi|instruksi|petunjuk|perintah"
    "|指示|指令|提示词|系统提示|プロンプト|命令|지시|지침|명령|프롬프트|instruktioner|riktlinjer|pokyny|instrukce|οδηγιες"
    "|הוראות|ההוראות|הנחיות|دستورالعمل|دستورات|คำสั่ง|คำแนะนำ|maagizo|maelekezo"
    "|lessons|lesson*|方針|方针|政策"
    "|the above|everything above|everything before|you were told|all of the above|alles bisherige|tout ce qui precede|todo lo anterior|tudo o que foi dito|tutto quanto sopra"
)
#: rules and policies: data in a tool error ("firewall rules"), guidance only with ``PRIOR``
RULES = (
    "rules|policies|restrictions|safety rules|guardrails|regeln|regles|reglas|regras|regole|regels|zasady|kurallar*|правила"
    "|القواعد|नियम|quy tac|aturan|规则|規則|ルール|규칙|regler|pravidla|κανονες|כללים|قوانین|กฎ|sheria"
    "|方針|方针|政策|policy"
)
#: "previous", "your", "all": which guidance
PRIOR = (
    "previous|prior|earlier|above|preceding|original|initial|all|your|system|old|existing|vorherig*|bisherig*|obig*|alle*|deine|ihre"
    "|precedent*|anterieur*|toutes|tes|vos|anterior*|previas|todas|tus|sus|suas|tutte|tue|vorige|eerdere|poprzedni*|wszystk*|twoje"
    "|onceki|tum|butun|предыдущ*|прежн*|все|свои|ваши|попередн*|всі|السابقة|جميع|पिछले|सभी|truoc|tat ca|sebelumnya|semua"
    "|之前|先前|所有|以前|すべて|全て|これまで|이전|모든|tidigare|alla|predchozi|vsechny|προηγουμεν*|ολες|הקודמות|قبلی|همه"
    "|ก่อนหน้า|ทั้งหมด|zote|awali"
)
#: guidance said to be void
VOID = (
    "obsolete|void|invalid|no longer valid|no longer apply|no longer applies|superseded|revoked|cancelled|canceled|null|withdrawn|retired|outdated"
    "|ungultig|aufgehoben|nichtig|nulle*|caduque*|annulee*|obsolete*|nula*|anulada*|sin efecto|invalida*|annullat*|ongeldig|vervallen"
    "|niewazn*|nieaktualn*|gecersiz|iptal|недействительн*|отменен*|устарел*|недійсн*|скасован*|ملغاة|لاغية|باطلة|अमान्य|रद्द"
    "|vo hieu|huy bo|tidak berlaku|batal|无效|作废|失效|無効|무효|ogiltiga|upphavda|neplatn*|zrusen*|ακυρ*|καταργ*|בטלות|מבוטלות"
    "|باطل|لغو|เป็นโมฆะ|ยกเลิก|batili|zimefutwa"
)
#: "you are now", "pretend": the agent given another identity
PERSONA = (
    "you are now|you're now|you are no longer|act as|pretend|role-play|roleplay|your new role|your new name|your new identity|your new persona|your new instructions|your new task"
    "|du bist jetzt|du bist nun|tu so als|deine neue rolle|tu es maintenant|vous etes maintenant|tu es desormais|fais semblant|ton nouveau role|votre nouveau role"
    "|ahora eres|finge|actua como|tu nuevo rol|tu nuevo papel|agora voce e|finja|aja como|seu novo papel|ora sei|adesso sei|fingi di|il tuo nuovo ruolo"
    "|je bent nu|doe alsof|je nieuwe rol|jestes teraz|teraz jestes|udawaj|twoja nowa rola|sen artik|artik sen|gibi davran|yeni rolun"
    "|теперь ты|ты теперь|притворись|веди себя как|твоя новая роль|тепер ти|ти тепер|прикинься|твоя нова роль|أنت الآن|انت الآن|تظاهر|دورك الجديد"
    "|अब तुम|अब आप|नाटक करो|bay gio ban la|tu gio ban la|gia vo|vai tro moi cua ban|sekarang kamu|kamu sekarang|berpura-pura|peran barumu"
    "|你现在是|现在你是|假装|扮演|你的新角色|あなたは今|今からあなたは|ふりをして|新しい役割|너는 이제|당신은 이제|척해|새로운 역할"
    "|du ar nu|latsas|din nya roll|nyni jsi|ted jsi|predstirej|tvoje nova role|τωρα εισαι|προσποιησου|ο νεος σου ρολος|אתה עכשיו|עכשיו אתה|העמד פנים|התפקיד החדש שלך"
    "|تو اکنون|تو الان|وانمود کن|نقش جدید تو|ตอนนี้คุณคือ|ตอนนี้คุณเป็น|แกล้งทำเป็น|สวมบทบาท|บทบาทใหม่ของคุณ|sasa wewe ni|jifanye|jukumu lako jipya"
)
#: what "you are now" turns the agent into (after ``PERSONA``'s "you are now")
UNBOUND = (
    "unrestricted|unfiltered|uncensored|jailbroken|dan|evil|without rules|without restrictions|without limits|no rules|no restrictions|no limits|free of"
    "|uneingeschrankt|ohne regeln|ohne einschrankungen|sans regles|sans restrictions|sans limites|sin reglas|sin restricciones|sin limites"
    "|sem regras|sem restricoes|senza regole|senza restrizioni|zonder regels|zonder beperkingen|bez zasad|bez ograniczen|kuralsiz|sinirsiz"
    "|без правил|без ограничений|без обмежень|بلا قيود|بدون قيود|बिना नियम|khong gioi han|tanpa batas|tanpa aturan|不受限制|没有限制|无限制"
    "|制限のない|制限なし|제한 없는|제한이 없는|utan begransningar|bez omezeni|χωρις περιορισμους|ללא הגבלות|بدون محدودیت|ไม่มีข้อจำกัด|bila vikwazo"
)
#: a negation: advice ("never share the password") is not a request
NEG = (
    "never|not|don't|do not|no|cannot|can't|nicht|kein*|niemals|ne|pas|jamais|nunca|nao|non|mai|niet|nooit|geen|nie|nigdy|asla|degil"
    "|не|никогда|ні|ніколи|لا|أبدا|नहीं|कभी|khong|dung|jangan|tidak|不|别|勿|从不|ない|않|마|aldrig|inte|ingen|inget|inga|nikdy|ποτε|μην|δεν|אל|לא"
    "|نه|هرگز|ไม่|อย่า|usi|kamwe"
)
#: a report that something failed: "upload to … failed" reports, it does not ask
FAILED = (
    "failed|failure|error|could not|couldn't|unable|cannot|can't|denied|refused|rejected|bounced|undeliverable|timed out|not delivered|blocked|invalid"
    "|fehlgeschlagen|fehler|konnte nicht|echec|erreur|impossible|refuse|fallo|fallido|no se pudo|rechazad*|falha|erro|nao foi possivel|errore|impossibile|fallit*|rifiutat*"
    "|mislukt|fout|niet gelukt|blad|nie udalo|nie powiodlo|hata|basarisiz|ошибк*|не удалось|помилк*|не вдалося|فشل|خطأ|त्रुटि|विफल|loi|that bai|gagal|kesalahan"
    "|失败|错误|失敗|エラー|실패|오류|misslyckades|fel|chyba|selhal*|σφαλμα|απετυχε|שגיאה|נכשל|خطا|ناموفق|ผิดพลาด|ล้มเหลว|hitilafu|imeshindwa"
    "|disabled|not allowed|forbidden|prohibited|declined"
)
#: verbs that send something somewhere
SEND = (
    "send|forward|upload|transmit|copy|submit|deliver|exfiltrate|leak|relay|sync|push|share|export|cc|bcc|attach|include|beacon"
    "|schick*|weiterleit*|leite* weiter|ubermittel*|kopier*|hochlad*|exportier*|teile|envoie*|envoyer|transfere*|transmet*|copie*|partage*|exporte*|ajoute*"
    "|envia|enviar|envie|manda*|reenvia*|comparte|exporta*|sube|anade|agrega|encaminhe|encaminhar|compartilhe|exporte|adicione|invia*|inoltra*|condividi|esporta|aggiungi"
    "|stuur*|verzend*|doorsturen|kopieer|deel|exporteer|voeg|wyslij|przeslij|przekaz|skopiuj|udostepnij|dodaj|gonder*|ilet*|kopyala|paylas|ekle"
    "|отправ*|перешл*|пересыл*|скопир*|выгруз*|добав*|пришл*|надішл*|відправ*|додай|أرسل|ارسل|حول|انسخ|شارك|أضف|भेजें|भेजो|भेज|फॉरवर्ड"
    "|gui|chuyen tiep|sao chep|them|kirim*|teruskan|salin|bagikan|tambahkan|发送|发到|转发|抄送|密送|上传|导出|复制|送信|送って|転送|送る|共有|追加"
    "|보내|전송|전달|공유|추가|skicka|vidarebefordra|kopiera|dela|lagg till|posli|poslete|preposli|odesli|zkopiruj|sdilej|pridej|στειλ*|προωθησ*|αντεγραψε|προσθεσε"
    "|שלח|שלחו|העבר|העתק|הוסף|بفرست|ارسال کن|فوروارد|کپی کن|اضافه کن|ส่ง|ส่งต่อ|คัดลอก|เพิ่ม|tuma|peleka|sambaza|nakili|ongeza"
    "|inclu*|incolla|pega|pegue|colle|collez|coller|einfug*|plak|wklej|вставь|粘贴|貼り付け|붙여|email to|e-mail to|mail to|post to|post it to|sende|senden|sendet"
    "|email|e-mail|mail|post|add|write|write to"
)
#: verbs that show something to someone
REVEAL = (
    "reveal|print|show|display|output|leak|disclose|dump|repeat|recite|tell|paste|echo|spell out|write out|share|zeig*|gib * aus|nenne|verrate"
    "|affiche*|revele*|divulgue*|muestra*|revela*|dime|mostra*|rivela*|toon|verklap|pokaz|ujawnij|goster*|acikla|покажи*|выведи*|раскрой*|сообщи*|розкрий*"
    "|أظهر|اكشف|اعرض|दिखाओ|बताओ|दिखाएं|hien thi|tiet lo|cho xem|tampilkan|ungkapkan|beritahu|显示|透露|输出|告诉|表示|教えて|出力|보여|알려|출력"
    "|visa|avsloja|beratta|ukaz|prozrad|vypis|δειξε|αποκαλυψε|הצג|גלה|ספר|نشان بده|فاش کن|بگو|แสดง|เปิดเผย|บอก|onyesha|fichua|niambie"
    "|geef|podaj|incolla|pega|pegue|colle|collez|coller|einfug*|plak|wklej|вставь|粘贴|貼り付け|붙여"
)
#: what must not be shown: secrets and the agent's own configuration
SECRET = (
    "system prompt|system message|hidden instructions|initial instructions|your instructions|your prompt|your configuration|your rules|api key*|api-key*|apikey"
    "|secret key*|secrets|password*|passwd|credentials|access token*|auth token*|private key*|environment variable*|env var*|connection string*|cvv|card number*"
    "|passwort*|kennwort*|zugangsdaten|api-schlussel|mot de passe|mots de passe|identifiants|cle api|contrasena*|credenciales|clave api|senha*|credenciais|chave api"
    "|credenziali|chiave api|wachtwoord*|inloggegevens|api-sleutel|haslo|hasla|dane logowania|klucz api|sifre*|parola|kimlik bilgileri|api anahtari"
    "|пароль*|пароли|учетные данные|ключ api|системный промпт|облікові дані|كلمة المرور|كلمة السر|بيانات الاعتماد|مفتاح api|पासवर्ड|क्रेडेंशियल"
    "|mat khau|khoa api|kata sandi|kredensial|kunci api|密码|密钥|凭证|系统提示|パスワード|認証情報|apiキー|システムプロンプト|비밀번호|암호|자격 증명|api 키|시스템 프롬프트"
    "|losenord|inloggningsuppgifter|api-nyckel|heslo|hesla|prihlasovaci udaje|κωδικο*|διαπιστευτηρια|סיסמה|סיסמא|מפתח api|رمز عبور|گذرواژه|کلید api"
    "|รหัสผ่าน|คีย์ api|nenosiri|nywila"
    "|chiav* api|clav* api|.env|database url|database credentials|db credentials|secret_key|private_key"
)
#: what the agent answers with (a secret "in the reply" is carried out too)
REPLY = (
    "reply|response|answer|message|antwort|reponse|respuesta|resposta|risposta|antwoord|odpowiedz*|cevap*|ответ*|відповід*|الرد|जवाब|uitvoer|phan hoi"
    "|balasan|jawaban|回复|回答|返信|回答|답변|응답|svar|odpoved|απαντηση|תשובה|پاسخ|คำตอบ|jibu"
)
#: the checks a policy holds: approval, verification, limits
GUARD = (
    "approval*|approving|authorization|authorisation|sign-off|signoff|verification|verifying|identity check*|id check*|kyc|2fa|mfa|two-factor|otp|pin|passcode"
    "|security question*|consent|limit|limits|cap|threshold*|confirmation|review|manager|supervisor|receipt*|fraud check*|restocking fee*|callback|checks"
    "|genehmigung|freigabe|prufung|verifizierung|identitatsprufung|bestatigung|obergrenze|zustimmung|quittung|beleg|approbation|validation|autorisation"
    "|verification|controle*|plafond|limite*|accord|recu|justificatif|aprobacion|autorizacion|verificacion|comprobacion|confirmacion|recibo|comprobante"
    "|aprovacao|autorizacao|verificacao|confirmacao|comprovante|approvazione|autorizzazione|verifica|controllo|conferma|ricevuta|goedkeuring|toestemming"
    "|verificatie|limiet|bevestiging|zgod*|zatwierdzeni*|weryfikacj*|potwierdzeni*|paragon*|onay*|dogrulama|kimlik|sinir|одобрени*|согласовани*|проверк*"
    "|верификаци*|подтверждени*|лимит*|схвален*|погоджен*|перевірк*|ліміт*|підтвердж*|موافقة|الموافقة|التحقق|تحقق|الحد|إيصال|अनुमोदन|मंजूरी|सत्यापन|सीमा|रसीद"
    "|phe duyet|xac minh|xac thuc|han muc|gioi han|hoa don|persetujuan|verifikasi|batas|struk|审批|批准|验证|核实|身份验证|限额|收据|确认|审核|承認|確認|認証"
    "|本人確認|限度|上限|領収書|審査|승인|확인|인증|본인 확인|한도|영수증|godkannande|verifiering|kontroll|grans|kvitto|schvaleni|overeni|uctenka|potvrzeni"
    "|εγκριση|επαληθευση|οριο|αποδειξη|אישור|אימות|מגבלה|קבלה|تایید|احراز هویت|سقف|رسید|การอนุมัติ|อนุมัติ|การยืนยัน|ยืนยันตัวตน|วงเงิน|ใบเสร็จ|idhini|uthibitisho|kikomo|risiti"
    "|verif*|check*|control*|kontroll*|prufung*|*prufung|genehmig*|*genehmigung|freigabe*|*freigabe|approv*|aprob*|aprov*|autori*|authori*|bestatig*|confirm*|eligib*|screening|hold|holds|hold list|restriction*|restricoes|restricciones|restrizioni|beschrankung*|einschrankung*|ограничени*|*grenze|*limit|limit*|ruckfrage|nachfrage|responsable|gerente|vorgesetzt*|leidinggevende|kierownik*|руководител*|上司|经理|主管|매니저|identit*|kimlik*|личност*|本人|身份"
)
#: words that put a check before an act ("ask a manager …", "… before issuing it", "above
#: 200 EUR"): with a GUARD word the clause adds a check, it grants nothing
CHECK_FIRST = (
    "ask|get|obtain|request|wait for|before|first|until|above|over|exceeding"
    "|fragen|einholen|vorher|bevor|zuerst|erst|bis|uber|demander|obtenir|attendre|avant|d'abord|jusqu'a|au-dessus de|au-dela de|pedir|solicitar|obtener|esperar"
    "|antes|antes de|primero|hasta|por encima de|mas de|obter|primeiro|ate|acima de|chiedere|ottenere|attendere|prima|prima di|fino a|oltre|sopra"
    "|vragen|aanvragen|eerst|voordat|tot|boven|zapytaj|uzyskaj|poczekaj|przed|najpierw|az do|powyzej|iste|al|bekle|oncesinde|kadar|uzerinde|asan"
    "|спроси*|запроси*|получи*|дождись|сначала|прежде|перед|до|свыше|выше|превышающ*|спитай*|отримай*|спочатку|перш ніж|понад|вище"
    "|اطلب|احصل|انتظر|قبل|أولا|حتى|فوق|يتجاوز|पूछ*|प्राप्त|प्रतीक्षा|पहले|से पहले|तक|ऊपर|से अधिक|hoi|xin|cho den khi|truoc|truoc khi|tren|vuot qua"
    "|minta|dapatkan|tunggu|sebelum|dulu|terlebih dahulu|sampai|di atas|melebihi|先|之前|以前|直到|超过|以上|申请|请求|前に|まず|までは|超える|求め"
    "|먼저|전에|까지|초과|이상|요청|fraga|inhamta|vanta|innan|forst|tills|overstigande|zeptat|ziskat|pockat|pred|nejdriv|dokud|nad|presahujici"
    "|ζητηστε|ζητησε|λαβετε|περιμενε|πριν|πρωτα|μεχρι|ανω των|πανω απο|בקש|קבל|המתן|לפני|קודם|עד|מעל|بپرسید|بگیرید|صبر کنید|قبل از|ابتدا|تا|بالای|بیش از"
    "|ถาม|ขอ|รอ|ก่อน|จนกว่า|เกิน|uliza|pata|subiri|kabla|kwanza|hadi|zaidi ya"
)
#: words that say an e-mail address is the user's own ("my e-mail: …", "correo: …"): in a
#: task, where a user can be reached, not where data is sent
MAIL = (
    "e-mail|email|mail|e-mail address|email address|mail address|courriel|adresse e-mail|adresse mail|adresse electronique|correo|correo electronico"
    "|direccion de correo|e-mail-adresse|mailadresse|emailadres|e-mailadres|indirizzo email|indirizzo e-mail|posta elettronica|endereco de email|endereco de e-mail"
    "|adres e-mail|adres email|e-posta|eposta|e-posta adresi|почта|электронная почта|адрес почты|электронный адрес|пошта|електронна пошта|البريد الإلكتروني|البريد"
    "|ईमेल|ई-मेल|dia chi email|thu dien tu|surel|alamat email|surat elektronik|邮箱|电子邮件|邮件地址|郵箱|メール|メールアドレス|電子メール|이메일|이메일 주소"
    "|e-post|e-postadress|e-mailova adresa|emailova adresa|ηλεκτρονικο ταχυδρομειο|διευθυνση email|אימייל|דואר אלקטרוני|ایمیل|پست الکترونیک|อีเมล|barua pepe"
)
#: a check said to be gone
RELAX = (
    "no longer|not needed|not required|not necessary|not mandatory|waived|lifted|removed|dropped|suspended|abolished|scrapped|relaxed|unlimited|optional"
    "|unnecessary|exempt*|withdrawn|retired|obsolete|can be skipped|skip|bypass|no need|doesn't apply|does not apply|handled elsewhere"
    "|nicht mehr|entfallt|entfallen|aufgehoben|abgeschafft|ausgesetzt|unbegrenzt|uberspring*|n'est plus|ne sont plus|plus necessaire|supprime*|leve*|aboli*"
    "|facultati*|illimite*|dispense*|ya no|eliminad*|suprimid*|opcional|ilimitad*|exent*|nao e mais|ja nao|dispensad*|removid*|non e piu|non sono piu"
    "|non serve piu|abolit*|rimoss*|sospes*|facoltativ*|illimitat*|niet meer|afgeschaft|opgeheven|optioneel|onbeperkt|juz nie|nie jest juz|nie sa juz|zniesion*"
    "|zawieszon*|opcjonaln*|nieograniczon*|artik|gerek yok|gerekmiyor|gerekli degil|kaldirildi|istege bagli|больше не|не нужн*|не требуется|отменен*|снят*"
    "|упразднен*|необязательн*|більше не|не потрібн*|скасован*|необов'язков*|لم تعد|لم يعد|ألغيت|اختياري|غير مطلوب|अब आवश्यक नहीं|जरूरत नहीं|khong con|khong can"
    "|da bo|mien|tidak lagi|tidak perlu|dihapus|dicabut|opsional|不再需要|不需要|无需|已取消|免除|豁免|不用|不要|不要了|もう必要|必要ありません|廃止|더 이상|필요 없|불필요|폐지|면제"
    "|inte langre|behovs inte|slopad*|valfri*|obegransad*|jiz neni|uz neni|zrusen*|volitelne|neomezen*|δεν απαιτειται|δεν χρειαζεται|καταργηθηκε|προαιρετικ*"
    "|כבר לא|אין צורך|בוטל|בוטלה|אופציונלי|دیگر لازم نیست|نیازی نیست|لغو شد|اختیاری|ไม่จำเป็น|ไม่ต้อง|haihitajiki|si lazima|imefutwa"
    "|no questions asked|no other check*|no further|no additional|no extra|no more|with no|superseded|overridden|turned off|switched off|not enforced|disable|disabled|deactivate|turn off|switch off|unverified|unchecked|unapproved|suspens*|suspendid*|suspendu*|plus besoin|plus de|nao precisa*|nao sao mais|non richied* piu|non serve* piu|allowed again|permitted again"
    "|there are no|there is no|need no|needs no|require no|requires no"
)
#: "without" (a check): a permission when nothing in the clause restricts it
WITHOUT = (
    "without|ohne|sans|sin|sem|senza|zonder|bez|без|بدون|बिना|ma khong|tanpa|无需|不用|なしで|せずに|なしに|없이|utan|χωρις|בלי|ללא|โดยไม่|bila"
    "|with no|beklemeden|olmadan|madan|meden"
)
#: words that make a clause a restriction or a report, not a permission
HELD = (
    "not|n't|cannot|never|no|denied|refused|requires|required|require|needs|need|must|only|attempt*|tried|trying|blocked|rejected|forbidden"
    "|prohibited|disallowed|unauthorized|unauthorised|error|failed|erforderlich|benotigt|requiert|necessite|obligatoire|requiere|necesita|obligatorio"
    "|requer|obrigatorio|richiede|obbligatorio|vereist|verplicht|wymaga|wymagane|gerekli|требует*|необходим*|обязательн*|потрібн*|يتطلب|مطلوب|आवश्यक"
    "|yeu cau|bat buoc|diperlukan|wajib|需要|必须|必要|필요|kravs|vyzaduje|απαιτειται|נדרש|لازم|ต้องการ|inahitajika"
    "|rejects|rejecting|denies|blocks|minimum|maximum|at least|at most"
    "|limited|restricted|once|one use|per customer|up to"
)
#: "may", "allowed": a permission
PERMIT = (
    "can|may|allowed|permitted|free to|go ahead|is fine|are fine|ok to|okay to|authorized to|authorised to|go through|goes through|are processed|is processed"
    "|darf|durfen|konnen|erlaubt|peut|peuvent|autorise*|permis|puede|pueden|permitido|pode|podem|puo|possono|consentit*|mag|mogen|toegestaan|moze|moga|wolno"
    "|izin|может|могут|разрешен*|можно|може|можуть|дозволен*|يمكن|يسمح|مسموح|सकते|अनुमति|co the|duoc phep|boleh|dapat|diizinkan|可以|允许|できる|してよい|許可"
    "|할 수|허용|해도|kan|tillatet|muze|smi|povoleno|μπορει|επιτρεπεται|מותר|יכול|مجاز|สามารถ|อนุญาต|anaweza|inaruhusiwa"
    "|valid for|applies to|apply to|works for|good for|can go|go out"
)
#: everyone, every order
ALL = (
    "all|every|any|each|anyone|everyone|anybody|alle|jede*|tous|toutes|chaque|tout|todos|todas|cada|cualquier*|qualquer|tutti|tutte|ogni|qualsiasi|elke|iedere"
    "|wszyscy|wszystkim|kazd*|tum|butun|все*|каждо*|любо*|всі|кожн*|كل|جميع|सभी|हर|tat ca|semua|setiap|所有|每|任何|すべて|全て|全員|各|모든"
    "|alla|varje|vsem|kazd*|ολους|καθε|כל|همه|هر|ทุก|wote|kila"
    "|her|anyone who|whoever"
)
#: who or what a perk goes to
CUSTOMERS = (
    "customers|users|orders|clients|buyers|callers|accounts|requests|tickets|purchases|members|kunden|bestellungen|nutzer|commandes|utilisateurs|clientes|pedidos"
    "|usuarios|clienti|ordini|utenti|klanten|bestellingen|klient*|zamowie*|musteri*|siparis*|клиент*|заказ*|пользовател*|клієнт*|замовлен*|العملاء|الطلبات"
    "|ग्राहक|ऑर्डर|khach hang|don hang|pelanggan|pesanan|客户|订单|用户|顧客|注文|お客様|고객|주문|kunder|bestallningar|zakaznik*|objednav*|πελατες|παραγγελιες"
    "|לקוחות|הזמנות|مشتریان|سفارش|ลูกค้า|คำสั่งซื้อ|wateja|oda"
    "|customer*|client*|user*|order*|buyer*|caller*|account*|request*|requester*|ticket*|purchase*|member*|anyone|everyone|chargeback*|shipment*|cliente*|kunde*|commande*|pedido*|ordine*|klant*|musteri*|müşteri*|клиент*|客户|お客|고객"
    "|amount|amounts|sum|size|betrag|montant|importe|valor|importo|bedrag|kwot*|tutar|сумм*|金额|金額|금액"
)
#: a perk
BENEFIT = (
    "discount|free|refund|credit|voucher|upgrade|gift card|store credit|coupon|rabatt|gratis|kostenlos|erstattung|gutschein|remise|reduction|gratuit*|rembourse*"
    "|descuento|reembolso|cupon|desconto|cupom|sconto|gratuit*|rimborso|buono|korting|terugbetaling|rabat|znizk*|darmow*|zwrot|indirim|ucretsiz|iade"
    "|скидк*|бесплатн*|возврат*|промокод|знижк*|безкоштовн*|повернен*|خصم|مجان*|استرداد|छूट|मुफ्त|रिफंड|giam gia|mien phi|hoan tien|diskon|pengembalian"
    "|折扣|免费|退款|优惠|割引|無料|返金|할인|무료|환불|aterbetalning|sleva|zdarma|vraceni|εκπτωση|δωρεαν|επιστροφη|הנחה|חינם|החזר|تخفیف|رایگان|بازپرداخت"
    "|ส่วนลด|ฟรี|คืนเงิน|punguzo|bure|marejesho"
    "|coupon*|code|codes|discount*|voucher*|refund*|free|gratis"
)
#: a policy announced as new
NEW_POLICY = (
    "new policy|updated policy|policy update|policy change|policy changed|policy has changed|policy has been updated|owner update|owner note|management note"
    "|exception granted|exception approved|neue richtlinie|richtlinienanderung|nouvelle politique|nueva politica|nova politica|nuova politica|nieuw beleid"
    "|nowa polityka|yeni politika|новая политика|нова політика|سياسة جديدة|नई नीति|chinh sach moi|kebijakan baru|新政策|新规定|新しいポリシー|새 정책|ny policy"
    "|nova pravidla|νεα πολιτικη|מדיניות חדשה|سیاست جدید|นโยบายใหม่|sera mpya"
    "|allowed again|permitted again|is now allowed|are now allowed|wieder erlaubt|de nouveau autorise*|nuevamente permitid*|di nuovo consentit*|weer toegestaan|снова разрешен*|再次允许|再び許可"
    "|store policy|company policy|shop policy|house policy"
)
#: what an API change is about: a tool's own interface is data, not a policy for the agent
API = (
    "parameter*|param|params|header*|field*|argument*|attribute*|property|properties|column*|endpoint*|query string|api version|schema|in favour of|in favor of"
    "|deprecated|renamed|feld|felder|kopfzeile|spalte|endpunkt|parametre*|champ*|en-tete|attribut*|colonne*|parametro*|campo*|encabezado|cabecera|argumento*"
    "|atributo*|columna*|cabecalho|coluna*|intestazione|argoment*|colonna*|veld|velden|kolom*|parametr*|pole|naglowek|atrybut*|kolumna*|alan*|baslik|sutun*"
    "|параметр*|поле|поля|заголов*|аргумент*|атрибут*|столб*|эндпоинт*|المعامل|معامل|الحقل|حقل|पैरामीटर|फ़ील्ड|फील्ड|हेडर|tham so|truong|tieu de|bidang"
    "|参数|字段|请求头|标头|属性|接口|パラメータ|パラメーター|フィールド|ヘッダー|項目|引数|매개변수|파라미터|필드|헤더|속성|falt|rubrik|hlavick*|παραμετρ*"
    "|πεδιο|κεφαλιδα|פרמטר|שדה|כותרת|پارامتر|فیلد|هدر|พารามิเตอร์|ฟิลด์|ส่วนหัว|kigezo"
)
#: "no longer" is a negation with one of these
LONGER = "longer|anymore|any more|mehr|plus|mas|mais|piu|meer|juz|artik|больше|більше|nua|lagi|不再|もう|더 이상|langre|jiz|uz|πλεον|כבר|دیگر|อีกต่อไป|tena"
#: verbs that hand something out
GRANT = (
    "approve|accept|honour|honor|grant|give|gives|apply|issue|refund|pay out|waive|reset|ship|send|offer|process|release"
    "|genehmige|akzeptiere|gewahre|gib|erstatte|approuve*|accepte*|accorde*|donne*|applique*|rembourse*|aprueba|acepta|concede|da|aplica|reembolsa"
    "|aprove|aceite|conceda|de|aplique|reembolse|approva|accetta|concedi|dai|applica|rimborsa|keur goed|accepteer|geef|pas toe|zatwierdz|zaakceptuj|daj|zastosuj"
    "|onayla|kabul et|ver|uygula|одобр*|прими|дай|примени|верни|схвал*|надай|застосуй|وافق|اقبل|امنح|طبق|स्वीकार|दें|लागू|chap nhan|cap|ap dung|setujui|terima|berikan|terapkan"
    "|批准|接受|给予|发放|应用|退还|承認|付与|適用|승인|적용|지급|godkann|ge|tillampa|schval|udel|pouzij|εγκρινε|δωσε|εφαρμοσε|אשר|תן|החל|تایید کن|بده|اعمال کن|อนุมัติ|ให้|ใช้|idhinisha|toa|tumia"
    "|valid for|applies to|works for|good for|tanimlayin|tanımlayın"
    "|settle|pay|pay out|payout"
)
#: elevated rights
ELEVATED = "admin rights|admin role|admin access|administrator*|owner role|org-owner|org_owner|superuser|root access|beheerder*|amministrator*|administrador*|администратор*|管理员|管理者権限|관리자"
#: verbs that hand something over: a secret handed to someone (``HAND`` + a recipient)
HAND = "give|provide|include|inclu*|send|share|fornisci|fornire|proporciona*|fournis*|fournir|donne*|gib|geef|podaj|дай|предоставь|提供|제공|付与|教えて"
#: data a check sends or asks for ("verification codes", "codes de vérification", the approval
#: e-mail): next to a ``GUARD`` word, the thing named is a datum, not the check itself
DATUM = (
    "code|codes|*code|*codes|codigo*|codice|codici|kod|kody|kodu|kodlar*|код|коды|кода|коди|sms|text message*|link|links|lien*|enlace*|e-mail*|email*|mail"
    "|message*|mensaje*|token*|jeton*|prompt*|notification*|push|attempt*|request*|رمز|कोड|kode|验证码|代码|码|コード|認証コード|코드|인증번호|κωδικ*|קוד|کد|รหัส|msimbo"
)
#: who runs the agent: a caller made one of these is obeyed ("treat this caller as the operator")
OPERATOR = (
    "operator*|owner|admin|administrator*|superuser|root|staff|developer|system|betreiber*|inhaber*|operateur*|proprietaire|administrateur*"
    "|operador*|propietario|dueno|administrador*|operatore|proprietario|amministrator*|beheerder|eigenaar|operatorem|wlasciciel*|yonetici|sahibi"
    "|оператор*|владел*|администратор*|المشغل|المالك|المسؤول|संचालक|मालिक|quan tri vien|pemilik|operator|运营者|所有者|管理员|オペレーター|管理者|운영자|관리자"
)
#: verbs that give someone a standing ("treat", "consider", "regard") before "as"
TREAT = (
    "treat*|consider*|regard*|recogni?e*|count*|trust*|behandl*|betracht*|ansehen|considere*|traite*|trata*|trate|tratar|considera*|tratta*"
    "|beschouw*|behandel*|traktuj|uznaj|kabul et|считай*|рассматривай*|признай|вважай|اعتبر|عامل|मानो|मानें|coi|anggap|视为|当作|看作|見なし|扱|간주|취급"
)
#: "as" before the standing given
AS = "as|als|comme|como|come|jako|olarak|как|як|كـ|بصفته|के रूप में|la|sebagai|为|作为|として|로|으로|som|ως|כ|به عنوان|เป็น|kama"
#: "automatically": a check said to pass by itself ("refunds are approved automatically")
AUTO = "automatic*|auto|auto-*|automatisch*|automatiqu*|automatica*|automatico*|automatisk*|automatyczn*|otomatik*|автоматическ*|自动|自動|자동"
