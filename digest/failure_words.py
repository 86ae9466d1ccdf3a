# ruff: noqa: E501
# (word lists in wide scripts run past the line length)
"""The words of a failure, for ``digest.agent_words.error_shaped``: what an error says when a
tool fails (failed, invalid, denied, not found, required, exceeded, expired, timeout, locked
…), in the languages of the screen (``digest.reflect.words``).

A closed class by meaning: none of these words orders, grants or relaxes anything, so a
quotation that has none of them and no error's shape (an exception's name, a code, a status)
is not what a failing tool said, and its sentence is not rendered for an agent.
"""

from __future__ import annotations

#: what says a quotation reports a failure, in the languages of the screen: a failure's own
#: words (failed, invalid, denied, not found, required, exceeded, expired, timeout, locked …)
#: Written as people write them; matched with combining marks dropped on both sides
#: (``error_shaped``). A ``*`` stands for any ending. Closed by meaning: no order, no policy.
FAILURE_WORDS = (
    "error*|err|fail*|invalid*|denied|deny|forbidden|not found|no such|does not exist|doesn't exist|missing|required|requires|exceed*"
    "|expired|timeout|timed out|time out|unauthori*|unauthenticated|rejected|refused|unavailable|exception|cannot|can't|could not|couldn't"
    "|unable|not allowed|not permitted|declined|blocked|locked|conflict|quota|bad request|too many|insufficient|mismatch*|malformed"
    "|violat*|unsupported|not supported|deprecated|overflow|crash*|abort*|fatal|panic|warning|already exists|duplicate|incorrect|wrong"
    "|busy|disabled|suspended|revoked|unreachable|refus*|unknown|out of range|out of memory|not ready|not configured|no permission|permission"
    "|traceback|stack trace|errno|killed|terminated|throttl*|rate limit*|overloaded|service unavailable|internal server|gateway|not a valid"
    "|vulnerab*|severity|leaks|finding|findings|detected|flagged|filtered|blocking|issues found"
    "|fehler*|fehlgeschlagen|ungultig|verweigert|nicht gefunden|erforderlich|uberschritten|abgelaufen|zeituberschreitung|nicht erlaubt|gesperrt"
    "|abgelehnt|nicht moglich|kann nicht|konnte nicht|erreur*|echec|echoue|invalide|refuse|interdit|introuvable|manquant|requis|obligatoire"
    "|depasse|expire|delai|impossible|non autorise|bloque|verrouille|rejete|fallo|fallo|invalido|denegado|prohibido|no encontrado|falta"
    "|requerido|excedido|caducado|expirado|tiempo de espera|no se pudo|no autorizado|bloqueado|rechazado|erro|falha|falhou|negado|proibido"
    "|nao encontrado|nao foi possivel|nao autorizado|recusado|rejeitado|errore|fallito|non valido|negato|vietato|non trovato|mancante"
    "|superato|scaduto|non autorizzato|bloccato|rifiutato|fout|mislukt|ongeldig|geweigerd|niet gevonden|verplicht|overschreden|verlopen"
    "|niet toegestaan|geblokkeerd|blad|bledu|nie powiodlo|nieprawidlow*|odmowa|nie znaleziono|wymagane|przekroczono|wygasl*|zablokowan*"
    "|odrzucon*|hata*|basarisiz|gecersiz|reddedildi|bulunamadi|gerekli|asildi|suresi doldu|engellendi|ошибк*|не удалось|недопустим*|неверн*"
    "|отказано|запрещ*|не найден*|требуется|обязательн*|превышен*|истек*|заблокирован*|отклонен*|невозможно|помилк*|не вдалося|недійсн*"
    "|відмовлено|заборонено|не знайдено|потрібно|перевищено|заблоковано|lỗi|that bai|khong hop le|bi tu choi|khong tim thay|bat buoc"
    "|vuot qua|het han|bi khoa|kesalahan|gagal|tidak valid|ditolak|tidak ditemukan|wajib|melebihi|kedaluwarsa|diblokir|fel|misslyckades"
    "|ogiltig|nekad|hittades inte|kravs|overskriden|utgatt|blockerad|avvisad|chyba|selhal*|neplatn*|odepren*|nenalezen*|vyzadovan*"
    "|prekrocen*|vyprsel*|zablokovan*|σφαλμα|απετυχε|μη εγκυρ*|απορριφθηκε|δεν βρεθηκε|απαιτειται|υπερβαση|εληξε|hitilafu|kosa|imeshindwa"
    "|si sahihi|imekataliwa|haipatikani|inahitajika|imezidi|imeisha"
    # what is lacking: out of stock, not enough, not available, too long
    "|out of stock|sold out|not enough|no longer available|not available|empty|exhausted|depleted|too low|too high|too long|too short|too large|too small|too few|offline|lacks"
    "|fehlt|fehlen|fehlend*|nicht vorratig|ausverkauft|nicht genug|unzureichend|nicht verfugbar|zu lang|zu kurz|zu gross|zu klein|rupture de stock|epuise|insuffisant*"
    "|pas assez|indisponible|non disponible|trop long|trop court|manque|agotado|sin stock|insuficiente|no disponible|no hay suficiente|esgotado|sem estoque|indisponivel"
    "|nao disponivel|esaurito|insufficiente|non disponibile|uitverkocht|niet op voorraad|onvoldoende|niet beschikbaar|ontbreekt|brak|niewystarczaj*|niedostepn*|wyprzedan*"
    "|stokta yok|yetersiz|mevcut degil|eksik|нет в наличии|недостаточно|отсутствует|недоступ*|закончил*|немає в наявності|недостатньо|відсутн*|het hang|khong du"
    "|khong co san|thieu|stok habis|tidak cukup|tidak tersedia|slut i lager|otillracklig|inte tillganglig|saknas|vyprodano|nedostatek|nedostupn*|chybi|εξαντλημενο"
    "|ανεπαρκ*|μη διαθεσιμ*|λειπει|haitoshi|haipo"
)
#: the same in scripts written without spaces, and in right-to-left ones: matched anywhere
FAILURE_SUBSTRINGS = (
    "错误|錯誤|失败|失敗|无效|無效|拒绝|拒絕|未找到|找不到|必填|超出|超过|过期|超时|禁止|不存在|不允许|锁定|异常|異常|エラー|拒否"
    "|見つかりません|必須|超過|期限切れ|タイムアウト|できません|存在しません|오류|에러|실패|잘못된|거부|찾을 수 없|필수|초과|만료|시간 초과"
    "|차단|할 수 없|ข้อผิดพลาด|ล้มเหลว|ไม่ถูกต้อง|ถูกปฏิเสธ|ไม่พบ|จำเป็น|เกิน|หมดอายุ|خطأ|فشل|غير صالح|مرفوض|رفض|غير موجود|مطلوب"
    "|تجاوز|انتهت|محظور|خطا|ناموفق|نامعتبر|رد شد|یافت نشد|الزامی|منقضی|שגיאה|נכשל|לא חוקי|נדחה|לא נמצא|נדרש|חריגה|פג תוקף|חסום"
    "|त्रुटि|विफल|अमान्य|अस्वीकृत|नहीं मिला|आवश्यक"
    "|不足|缺货|缺少|售罄|无货|在庫切れ|品切れ|품절|부족|غير متوفر|نفد|غير كاف|ناموجود|کافی نیست|אזל|לא זמין|חסר|หมด|ไม่เพียงพอ|स्टॉक में नहीं|अपर्याप्त|उपलब्ध नहीं"
)
