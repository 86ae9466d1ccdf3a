"""Vietnamese, Indonesian, Chinese, Japanese and Korean tables for ``digest.reflect.lexicon``."""

_VI = r"""
NEG \b(?:không|đừng|chớ|cấm|chưa|chẳng)\b
QUAL \b(?:trước đó|trước đây|phía trên|ở trên|tất cả|mọi|hệ thống|ban đầu|gốc|cũ)\b
OLD \b(?:trước đó|trước đây|phía trên|ở trên|ban đầu|cũ)\b
NOUN \b(?:hướng dẫn|chỉ dẫn|chỉ thị|quy tắc|lệnh|lời nhắc|prompt|quy định)\b
IGN (?<!đã )(?<!được )\b(?:bỏ qua|phớt lờ|lờ đi|quên(?: đi)?|bất chấp)\b
NOFOLLOW \b(?:không|đừng) (?:cần )?(?:tuân theo|làm theo|nghe theo|tuân thủ)\b
VOID \b(?:không còn (?:hiệu lực|giá trị|áp dụng)|đã bị (?:hủy|huỷ|thay thế|bãi bỏ|vô hiệu)
 |hết hiệu lực|lỗi thời)
PROMPT \b(?:lời nhắc|prompt|thông điệp|chỉ dẫn|hướng dẫn) hệ thống\b|\bhướng dẫn (?:ẩn|bí mật|nội bộ
 |ban đầu)\b|\bcấu hình (?:của bạn|nội bộ|bí mật)\b
SECRET \bmật khẩu\b|\bthông tin đăng nhập\b|\bkhóa (?:api|bí mật)\b|api[ _-]?keys?|\btoken\b
 |\bmã thông báo\b|\bbiến môi trường\b
SHOW \b(?:tiết lộ|hiển thị|in ra|cho (?:tôi|tao|mình) (?:xem|biết)|nói cho (?:tôi|tao) biết|chia sẻ
 |xuất ra|đưa (?:cho )?(?:tôi|mình))\b
ECHO \blặp lại\b
SEND (?<!đã )(?<!được )\b(?:gửi|chuyển tiếp|(?<!trò )chuyển (?:đến|tới|sang|cho)|sao chép|tải lên
 |đăng|cc|bcc)\b
DATA \blịch sử\b|\bcuộc (?:trò chuyện|hội thoại)\b|\bhội thoại\b|\bbản ghi\b|\bdữ liệu (?:khách hàng
 |người dùng|cá nhân)\b|\b(?:toàn bộ|tất cả) dữ liệu\b|\bcơ sở dữ liệu\b|\bhồ sơ khách hàng\b
 |\b(?:tất cả|mọi) (?:tin nhắn|email|câu trả lời|phản hồi)\b|\bthông tin đăng nhập\b|\bmật khẩu\b
RECUR \btừ (?:bây giờ|giờ|nay)\b|\bkể từ (?:bây giờ|nay)\b|\bluôn(?: luôn)?\b|\bmỗi (?:câu trả lời
 |phản hồi|tin nhắn|lần)\b|\bmọi (?:câu trả lời|phản hồi)\b
ROLE \bquản trị viên\b|\badmin\b|\broot\b|\bnhà phát triển\b|\bdan\b|\bkhông (?:bị )?(?:giới hạn
 |hạn chế|kiểm duyệt)\b
LOGIN đăng nhập|kết nối
FROMNOW \b(?:từ (?:bây giờ|giờ|nay)(?: trở đi)?|kể từ (?:bây giờ|nay))\b
YOUARE \bbạn (?:là|sẽ là|chỉ nghe lệnh|chỉ tuân lệnh|phục tùng|làm việc cho)\b|\bhãy (?:nghe lệnh
 |tuân lệnh)\b
YOUARENOW \bbạn (?:bây giờ|giờ|hiện giờ|giờ đây) là\b
ACTAS \b(?:đóng vai|giả vờ là|giả làm|hành động như|cư xử như|nhập vai)\b
PERSONAX \bgiả vờ\b|\bvai trò mới của bạn\b|\bbạn không còn làm việc cho\b
MODE \bchế độ (?:nhà phát triển|developer|thần|quản trị|jailbreak|dan|không giới hạn)\b
ON \b(?:đã (?:được )?bật|đã kích hoạt|bật|kích hoạt)\b
ENABLE \b(?:bật|kích hoạt)\b
PN \b(?:phê duyệt|chấp thuận|xác minh|xác thực|kiểm tra|xác nhận|danh tính|hóa đơn|biên lai|giới hạn
 |hạn mức|hạn chế|ủy quyền)\b
NOLONGER \bkhông còn (?:cần|yêu cầu|bắt buộc|phải)\b
NOLONGERF \bkhông còn (?:cần thiết|bắt buộc|được yêu cầu)\b
POLICYX \bkhông (?:cần|yêu cầu|bắt buộc|phải)\b~20<PN>~15\bnữa\b
LIFTED \bđã (?:được |bị )?(?:bãi bỏ|gỡ bỏ|xóa bỏ|loại bỏ|hủy bỏ|dỡ bỏ)\b
ALLCUST \b(?:tất cả|mọi) khách hàng\b
GET \b(?:được|nhận|hưởng)\b
PERK giảm giá|hoàn tiền|miễn phí
WITHOUT \b(?:không cần|mà không)\b
CMD \b(?:lệnh|script|tập lệnh|kịch bản|shell|terminal|bash|powershell|dòng lệnh)\b
RUN (?<!đã )(?<!được )\b(?:chạy|thực thi|thực hiện|khởi chạy)\b
DN \b(?:dữ liệu|bản ghi|tệp|file|khách hàng|người dùng|tài khoản|đơn hàng|tin nhắn|bảng|bản sao lưu
 |email|nhật ký|thư mục|dự án)\b
ALL \b(?:tất cả|toàn bộ|mọi)\b
DEL (?<!đã )(?<!được )\b(?:xóa|xoá|hủy|huỷ|làm trống|dọn sạch|phá hủy)\b
DB \bcơ sở dữ liệu\b
CALL \b(?:gọi|sử dụng|dùng|chạy)\b
"""

_ID = r"""
NEG \b(?:tidak|jangan|tak|bukan|dilarang)\b
QUAL \b(?:sebelumnya|di atas|terdahulu|awal|asli|sistem|semua|seluruh|lama)\b
OLD \b(?:sebelumnya|di atas|terdahulu|awal|asli|lama)\b
NOUN \b(?:instruksi|perintah|aturan|petunjuk|arahan|pedoman|prompt|panduan|ketentuan)\b
IGN \b(?:abaikan|acuhkan|lupakan|hiraukan|kesampingkan)\b
NOFOLLOW \b(?:jangan|tidak perlu|tak perlu) (?:lagi )?(?:ikuti|mengikuti|patuhi|mematuhi|turuti
 |menuruti)\b
VOID \b(?:(?:sudah )?tidak berlaku(?: lagi)?|dibatalkan|diganti|dicabut|usang|tidak valid)\b
PROMPT \b(?:prompt|pesan|instruksi) sistem\b|\binstruksi (?:tersembunyi|rahasia|internal|awal)\b
 |\b(?:konfigurasi|pengaturan|aturan|instruksi)(?:mu| anda)\b
SECRET \bkata sandi\b|\bsandi\b|\bpassword\b|\bkredensial\b|\bkunci (?:api|rahasia|privat|akses)\b
 |api[ _-]?keys?|\btoken(?:mu| anda| akses)\b|\bvariabel lingkungan\b
SHOW \b(?:tunjukkan|perlihatkan|tampilkan|ungkapkan|bocorkan|cetak|beri ?tahu|katakan|sebutkan
 |bagikan|berikan)\b
ECHO \b(?:ulangi|tuliskan)\b
SEND \b(?:kirim|kirimkan|teruskan|salin|unggah|upload|tembuskan|cc|bcc)\b
DATA \briwayat\b|\bpercakapan\b|\bobrolan\b|\btranskrip\b|\bdata (?:pelanggan|pengguna|pribadi
 |nasabah)\b|\b(?:semua|seluruh) data\b|\bbasis data\b|\bdatabase\b|\bcatatan pelanggan\b
 |\bsemua (?:pesan|email|balasan|jawaban)\b|\bsetiap (?:balasan|jawaban|pesan)\b|\bkredensial\b
 |\bkata sandi\b|\bsemuanya\b
RECUR \bmulai (?:sekarang|saat ini|hari ini)\b|\bdari sekarang\b|\bseterusnya\b|\bselalu\b
 |\bsetiap (?:balasan|jawaban|pesan|kali)\b|\bke depannya\b
ROLE \badministrator\b|\badmin\b|\broot\b|\bpengembang\b|\bdeveloper\b|\bdan\b|\btanpa (?:batas
 |batasan|aturan|filter|sensor)\b
LOGIN masuk|login|terhubung
FROMNOW \b(?:mulai (?:sekarang|saat ini|hari ini)|dari sekarang|sejak saat ini)\b
YOUARE \b(?:kamu|anda) (?:adalah|ialah|jadi|menjadi|hanya|bekerja untuk|patuh)\b|\b(?:patuhi
 |turuti) (?:aku|saya)\b
YOUARENOW \b(?:(?:kamu|anda) sekarang|sekarang (?:kamu|anda))(?: adalah)?\b
ACTAS \b(?:bertindak|berperan|berlagak|bersikaplah|bertindaklah|berperanlah)\b
PERSONAX \b(?:berpura-pura|pura-pura)\b|\bperan baru(?:mu| anda)\b|\b(?:kamu
 |anda) tidak lagi bekerja untuk\b
MODE \bmode (?:pengembang|developer|dewa|admin\w*|jailbreak|dan|tanpa batas)\b
ON \b(?:aktif|diaktifkan|menyala|dinyalakan)\b
ENABLE \b(?:aktifkan|nyalakan)\b
PN \b(?:persetujuan|otorisasi|verifikasi|validasi|konfirmasi|identitas|pemeriksaan|bukti|struk
 |kuitansi|faktur|batas|limit|pembatasan|izin)\b
NOLONGER \b(?:tidak lagi|sudah tidak) (?:perlu|memerlukan|membutuhkan|butuh|wajib|diperlukan)\b
NOLONGERF \b(?:tidak lagi|sudah tidak) (?:diperlukan|dibutuhkan|wajib|perlu|berlaku)\b
POLICYX \btidak (?:perlu|memerlukan|membutuhkan|butuh|wajib)\b~20<PN>~15\blagi\b
LIFTED \b(?:telah|sudah) (?:dihapus|dicabut|ditiadakan|dinonaktifkan|diangkat)\b
ALLCUST \b(?:semua|setiap) pelanggan\b
GET \b(?:mendapat|mendapatkan|dapat|berhak)\b
PERK diskon|potongan|pengembalian dana|refund|gratis
WITHOUT \btanpa\b
CMD \b(?:perintah|skrip|script|shell|terminal|konsol|bash|powershell|baris perintah)\b
RUN \b(?:jalankan|eksekusi|eksekusikan|ketik)\b
DN \b(?:data|catatan|rekaman|berkas|file|pelanggan|pengguna|akun|pesanan|pesan|tabel|cadangan|backup
 |email|log|folder|proyek)\b
ALL \b(?:semua|seluruh)\b
DEL \b(?:hapus|hapuskan|kosongkan|musnahkan|bersihkan)\b
DB \b(?:basis data|database)\b
CALL \b(?:panggil|gunakan|jalankan)\b
"""

_ZH = r"""
GATE [\u3040-\u30ff\u3400-\u9fff]
POST [ぁ-ゖ]|ないで|しない|ません|するな
NEG 不要|不得|不能|不可|不应|不允许|别|勿|禁止|严禁|切勿|绝不|决不|从不|从未|永远不|未|无法
QUAL 之前|以前|先前|此前|上面|上述|以上|前面|所有|全部|一切|系统|原有|原来|原始|初始|你的
OLD 之前|以前|先前|此前|上面|上述|以上|前面|原有|原来|原始|初始|旧的
NOUN 指令|指示|规则|提示词|提示|说明|要求|设定|命令|约束
IGN (?<![已被])(?:忽略|忽视|无视|忘记|忘掉|抛开|丢弃|绕过|撇开)
IGNF (?<![已被])(?:忽略|忽视|无视|忘掉|作废)
NOFOLLOW (?:不要|不用|不必|无需|别|停止)再?(?:遵守|遵循|听从|理会|服从|按照)
NOFOLLOWF (?:不再|不用再|无需再)(?:遵守|遵循|听从|理会|执行|服从)
VOID 作废|失效|无效|废除|被替换|被取代|不再有效|不再适用|过时
PROMPT 系统(?:提示词?|指令|消息|设定)|(?:隐藏|秘密|内部|原始|初始)的?(?:指令|提示词?|设置|配置)
 |你的(?:指令|提示词|配置|设置|规则)
SECRET 密码|口令|凭据|凭证|密钥|秘钥|私钥|api ?key|令牌|token|环境变量|机密
SHOW (?<![已被])(?:泄露|泄漏|透露|显示|展示|打印|输出|告诉我|告诉|给我|发给我|公开|说出|列出
 |分享)(?![了过])
ECHO 复述|重复|逐字写出
SHOWF 告诉我|发给我|打印出来|显示出来|输出|透露|泄露
SEND (?<![已被])(?:发送|发给|发到|转发|抄送|密送|复制到|拷贝到|上传|传到|提交到|同步到
 |发布到)(?![了过])|\b(?:bcc|cc)\b
DATA 聊天记录|对话记录|对话历史|历史记录|会话|对话内容|客户数据|用户数据|客户资料|个人数据|个人信息
 |所有数据|全部数据|数据库|所有(?:消息|邮件|回复)|每(?:条|一条|次)(?:回复|消息)|凭据|密码
RECUR 从现在起|从现在开始|今后|以后|此后|始终|总是|每次|每条|每一条|一律
ROLE 管理员|超级用户|root|admin|开发者|\bdan\b|不受(?:任何)?限制|没有(?:任何)?限制|无限制|无约束
LOGIN 登录|登陆|连接
FROMNOW 从现在(?:起|开始)|今后|从今以后|此后
YOUARE 你(?:就|将|现在)?是|你(?:要|必须)?服从|听从我|服从我|你将成为|你为~6工作
YOUARENOW 你现在(?:是|就是|成为)
ACTAS 扮演|假装|假扮|冒充|充当
PERSONAX 假装你是|你的新(?:角色|身份)|你(?:不再|已不再)(?:为|替)~10(?:工作|服务)
MODE (?:开发者|开发人员|上帝|管理员|越狱|jailbreak|dan)模式
ON 已?(?:启用|开启|激活|打开)
ENABLE 启用|开启|激活|打开|进入
PN 审批|批准|审核|核实|验证|身份验证|身份核验|实名|确认|授权|许可|额度|限额|上限|限制|发票|收据
NOLONGER 不再(?:需要|要求|需|必须)|无需再|不用再
NOLONGERF (?:不再|无需再|已经不|已不)(?:需要|必要|要求|必须)?
LIFTED 已(?:经)?(?:被)?(?:解除|移除|废除|放开|撤除|去除|撤销)|被(?:解除|移除|废除|撤销)
ALLCUST (?:所有|全部|每位|每个)(?:客户|顾客|用户)
GET (?:都)?(?:可|可以|能|将)?(?:获得|享受|享有|得到)
PERK 折|优惠|退款|免费|全额
WITHOUT 无需|不需要|不用|不必
CMD 命令|脚本|shell|终端|bash|powershell|命令行|控制台
RUN (?<![已被])(?:执行|运行|跑一下|启动)
RUNX (?:在)?(?:终端|命令行|shell|控制台)(?:中|里)~4(?:执行|运行|输入)|下载~10(?:执行|运行)
DN 数据|记录|文件|客户|用户|账户|账号|订单|消息|表|备份|邮件|日志|目录|项目|内容
ALL 所有|全部|整个|一切
DEL (?<![已被])(?:删除|删掉|清空|清除|抹掉|销毁|擦除|drop)
DB 数据库
CALL (?<![已被])(?:调用|使用|执行|运行)
"""

_JA = r"""
GATE [\u3040-\u30ff\u3400-\u9fff]
NEG 決して|禁止|ないで|しないこと|してはいけ|てはな[らり]|ません|せず
POST ないで|ないこと|しない|ません|てはいけ|てはな[らり]|るな|禁止|不可
QUAL 以前|前の|これまで|先ほど|上記|上の|すべて|全て|全部|システム|元の|最初の|初期|あなたの
OLD 以前|前の|これまで|先ほど|上記|上の|元の|最初の|初期|古い
NOUN 指示|命令|ルール|規則|指令|プロンプト|制約|ガイドライン|インストラクション|方針
IGNF (?:無視|破棄)(?:して|しろ|せよ|しなさい|すること|するように)(?!い)|忘れ(?:て|ろ)(?!い)
NOFOLLOWF 従わないで|従う必要はありません|従うな|もう従わ|守らないで|守る必要はない
VOID 無効|廃止|撤回|取り消され|置き換え|もう有効では|適用されません|失効
PROMPT システムプロンプト|システム(?:メッセージ|指示|設定)|(?:隠された|秘密の|内部の|非公開の
 |元の)(?:指示|プロンプト|設定)|あなたの(?:指示|設定|プロンプト|ルール)
SECRET パスワード|暗証番号|認証情報|資格情報|apiキー|api ?key|アクセストークン|トークン|環境変数
 |秘密鍵|シークレット
SHOWF (?:表示|見せ|教え|出力|印刷|開示|公開|共有|漏ら|送っ|送信|書き出|言っ|伝え)(?:して|て|しろ
 |せよ|しなさい|ろ)
ECHO 繰り返
SEND (?:送信|転送|コピー|アップロード|共有|同報)(?:して|しろ|せよ|しなさい|すること
 |するように)(?!い)|送って(?!い)|送れ|\b(?:bcc|cc)\b
DATA 会話履歴|チャット履歴|履歴|会話|やり取り|トランスクリプト|顧客データ|顧客情報|ユーザーデータ
 |個人情報|全データ|すべてのデータ|データベース|記録|(?:全て|すべて)の(?:メッセージ|返信|メール)
 |毎回の返信|各返信|認証情報|パスワード
RECUR 今後|これから|以後|今から|常に|いつも|毎回|(?:すべて|全て)の返信|必ず
ROLE 管理者|アドミン|admin|root|ルート|開発者|\bdan\b|制限のない|無制限の|制約のない|何でもできる
LOGIN ログイン|接続
FROMNOW (?:今後|これから|今から|以後|今日から)は?
YOUARE (?:あなた|君|お前)は~15(?:<ROLE>|私に従|私の命令|だけに従)
YOUARENOW あなたは(?:今|もう|これから)
ACTASF (?:として|のように)~4(?:振る舞|行動|ふるま|動い)|の?(?:ふり|フリ|振り)をして|になりきって
 |を演じて
PERSONAX あなたの新しい(?:役割|役目|ロール)|(?:もう|もはや)~10のために働いていません
MODE (?:開発者|デベロッパー|ゴッド|神|管理者|脱獄|jailbreak|dan)モード
ON (?:が|を|は)?(?:有効|オン|起動|on|アクティブ)(?!~6(?:では|じゃ|になっていません|ません))
ENABLE 有効にして|オンにして|起動して
PN 承認|許可|決裁|審査|確認|本人確認|身元確認|検証|認証|レシート|領収書|上限|制限|限度額|限度
NOLONGERF (?:は|が)?(?:不要になりました|不要となりました|もう必要(?:あり|で)|必要なくなりました
 |必要がなくなりました|なくなりました)
LIFTED (?:は|が)?(?:撤廃|解除|廃止)(?:され|し|に)
POLICYX (?:今後|これから|以後|今日から)は?~10<PN>~10(?:不要|なし|無し|いりません|必要ありません)
 |(?:全て|すべて|全)の(?:お客様|顧客|ユーザー)~10(?:に|が|は)~10(?:\d+\s?%|割引|返金|無料|全額)
CMD コマンド|スクリプト|シェル|ターミナル|bash|powershell|コンソール
RUNF (?:を)?(?:実行|起動)(?:して|しろ|せよ|しなさい|すること|するように)|走らせて
DN データ|レコード|ファイル|顧客|ユーザー|アカウント|注文|メッセージ|テーブル|バックアップ|メール
 |ログ|フォルダ|プロジェクト
ALL すべて|全て|全部|全
DELF (?:を)?(?:削除|消去|破棄|ドロップ|初期化|クリア)(?:して|しろ|せよ|しなさい|すること|するように)
 |消して
DB データベース
CALLF (?:を)?(?:呼び出|実行|使っ|使用)(?:して|しろ|せよ)
DESTROYX (?:すべて|全て|全部)を?(?:削除|消去)(?:して|しろ|せよ)
"""

_KO = r"""
GATE [\u1100-\u11ff\uac00-\ud7af]
NEG 하지 ?마|말 ?것|말아|않|금지|절대|안 ?돼|안 ?됨|마세요|마십시오|마라
POST 하지 ?마|하지 ?말|말 ?것|않|금지|안 ?돼|마세요|마십시오|마라
QUAL 이전|앞의|앞서|위의|위에|기존|모든|전부|시스템|원래|초기|당신의|너의
OLD 이전|앞의|앞서|위의|위에|기존|원래|초기|예전
NOUN 지시|지침|명령|규칙|프롬프트|지령|가이드라인|규정|제약
IGNF 무시(?:하세요|하십시오|하라|해|해라|해줘|해요)(?![가-힣])|잊(?:어|어버려|으세요|어버리세요
 |어라)(?![가-힣])
NOFOLLOWF 따르지 ?마|따르지 ?말|지키지 ?마|더 ?이상 따르지|듣지 ?마
VOID 무효|폐기|취소되었|더 ?이상 유효하지|대체되었|적용되지 않
PROMPT 시스템 ?(?:프롬프트|메시지|지침|지시)|(?:숨겨진|비밀|내부|원래) ?(?:지시|지침|프롬프트|설정)
 |(?:당신의|너의|네) ?(?:지시|설정|프롬프트|규칙)
SECRET 비밀번호|패스워드|암호|자격 ?증명|인증 ?정보|api ?키|api ?key|액세스 ?토큰|토큰|환경 ?변수
 |비밀 ?키|개인 ?키
SHOWF (?:보여|알려)(?:줘|주세요|주십시오|라)?(?![가-힣])|(?:출력|공개|표시|인쇄|공유|유출
 |누설)(?:하세요|하십시오|하라|해|해라|해줘|해요)(?![가-힣])|말해(?:줘|주세요)?(?![가-힣])
ECHO 반복
SEND 보내(?:세요|십시오|라|줘|요)?(?![가-힣])|(?:전송|전달|복사|업로드|공유)(?:하세요|하십시오|하라
 |해|해라|해줘|해요)(?![가-힣])|숨은 ?참조|참조로|\b(?:bcc|cc)\b
DATA 대화 ?기록|채팅 ?기록|대화 ?내용|대화|고객 ?데이터|고객 ?정보|사용자 ?데이터|개인 ?정보
 |모든 ?데이터|데이터베이스|모든 ?(?:메시지|답변|이메일|응답)|매 ?(?:답변|응답)|자격 ?증명|비밀번호
RECUR 지금부터|이제부터|앞으로|항상|언제나|매번|모든 ?(?:답변|응답)|매 ?(?:답변|응답)
ROLE 관리자|어드민|admin|root|루트|개발자|\bdan\b|제한 ?없는|무제한|검열 ?없는
LOGIN 로그인|접속|연결
FROMNOW 지금부터|이제부터|앞으로|오늘부터
YOUARE (?:너는|당신은|넌)~15(?:<ROLE>|나에게만|내 명령|나의 명령|복종|따른다|따라)
YOUARENOW (?:너는|당신은|넌) ?(?:이제|지금)
ACTASF (?:처럼|인 ?척|로서)~4(?:행동|굴어|하라|해)|인? ?척|(?:역할을|역할로)~4(?:해|하라|맡아|연기)
PERSONAX (?:너의|당신의|네) ?새로운 ?역할|더 ?이상~10위해~4일하지 않
MODE (?:개발자|관리자|갓|신|탈옥|jailbreak|dan) ?모드
ON (?:가|를|이)?~4(?<!비)(?:활성화|켜|on|실행)(?!~8(?:않|안 ))
PN 승인|허가|결재|심사|확인|본인 ?확인|신원 ?확인|인증|검증|영수증|한도|제한|상한
NOLONGERF (?:은|는|이|가)?~4(?:더 ?이상|이제)~6(?:필요(?:하지 않|없)|요구되지 않)
LIFTED (?:이|가|은|는)?~4(?:해제|폐지|철폐|삭제|제거)(?:되었|됐|됨)
POLICYX (?:더 ?이상|이제)~6<PN>~6(?:이|가|은|는)?~4(?:필요 ?없|필요하지 않|요구되지 않)|(?:모든
 |전체) (?:고객|사용자|손님)~10(?:\d+\s?%|할인|환불|무료|전액)|<FROMNOW>~20<PN>~4(?:없이|불필요
 |생략)
CMD 명령어?|스크립트|셸|쉘|터미널|bash|powershell|콘솔
RUNF (?:을|를)?~4(?:실행|돌려|구동)(?:해|하세요|하라|해라|하십시오|시켜)
DN 데이터|레코드|파일|고객|사용자|계정|주문|메시지|테이블|백업|이메일|로그|폴더|프로젝트
ALL 모든|전체|전부
DELF (?:을|를)?~4(?:(?:삭제|제거|초기화|파기)(?:해|하세요|하라|해라|하십시오)|지워|비워)
DB 데이터베이스
CALLF (?:을|를)?~4(?:호출|실행|사용)(?:해|하세요|하라|해라|하십시오)
"""

LANGUAGES = (_VI, _ID, _ZH, _JA, _KO)
