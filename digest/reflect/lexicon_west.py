"""French, Spanish, Portuguese, Italian and Dutch tables for ``digest.reflect.lexicon``."""

_FR = r"""
NEG \bne\b|\bn['’]|\b(?:jamais|pas|aucun\w*|nullement|personne)\b
QUAL \b(?:précédent|antérieur|ci-dessus|préalable|initial|originel|original|système|ancien|toutes
 |tous|vos|tes|d['’]avant)\w*
OLD \b(?:précédent|antérieur|ci-dessus|initial|ancien|d['’]avant)\w*
NOUN \b(?:instruction|consigne|règle|directive|prompt|indication|orientation)s?\b
IGN \b(?:ignore[sz]?|oublie[sz]?|néglige[sz]?|outrepasse[sz]?|contourne[sz]?|écarte[sz]?)\b
 |(?<![dl]['’])\b(?:ignorer|oublier|négliger)\b|\b(?:fais|faites) abstraction|\bpasse[sz]? outre
 |\blaisse[sz]? tomber
IGNX \boubli(?:e|ez)\b~10\btout\b~30(?:dit|précède|ci-dessus|avant|appris)
NOFOLLOW \bne (?:suis|suivez|respecte|respectez|tiens|tenez|obéis|obéissez|applique
 |appliquez)\b%10\b(?:plus|pas)\b
VOID \b(?:sont|est|ont été|a été|deviennent)\b%20(?:obsolètes?|caduques?|annulée?s?|remplacée?s?
 |révoquée?s?|plus valables?|plus en vigueur|nulles?|périmée?s?|abrogée?s?|invalides?)
PROMPT prompt (?:système|initial)|invite système|message système|(?:instructions?|consignes?
 |configuration|paramètres) (?:cachée?s?|secrètes?|internes?|système|initiales?|d['’]origine)
 |\b(?:ta|votre|vos|tes|ton) (?:configuration|paramètres|instructions|consignes|règles|prompt)
SECRET \bmots? de passe|\bmdp\b|\b(?:tes|vos|les) identifiants\b|identifiants de connexion
 |\bclés? (?:d['’]api|api|secrètes?|privées?|d['’]accès)|api[ _-]?keys?|jetons? (?:d['’]accès|api
 |d['’]authentification)|\b(?:ton|votre) (?:jeton|token)|variables? d['’]environnement|\bsecrets?\b
 |informations? d['’]identification
SHOW \b(?:révèle|révélez|affiche[rz]?|montre[rz]?|imprime[rz]?|donne[rz]?|dis-moi|dites-moi|dis moi
 |dites moi|divulgue[rz]?|communique[rz]?|partage[rz]?|fournis|fournissez|transmets|transmettez
 |liste[rz]?)\b
ECHO \b(?:répète|répétez|écris|écrivez|recopie|recopiez|cite|citez)\b
SEND \b(?:envoie|envoies|envoyez|transfère|transférez|copie|copiez|téléverse|téléversez|transmets
 |transmettez|publie|publiez|uploade|uploadez|cci|bcc|cc|en copie cachée|mets en copie
 |mettez en copie)\b|\b(?:dois|devez|doit|faut)~15\b(?:envoyer|transférer|transmettre|copier)\b
DATA \bhistorique|\bconversations?\b|\bdiscussions?\b|\béchanges\b|\btranscriptions?\b
 |\bdonnées (?:clients?|des clients|personnelles|utilisateurs?|des utilisateurs|du client)
 |toutes les données|bases? de données|\benregistrements\b|dossiers clients|fichiers? clients?
 |tous les (?:messages|e-?mails|courriels|enregistrements)|toutes les (?:réponses|conversations)
 |chaque (?:réponse|message)|mots de passe|identifiants de connexion|\btout(?= à\b)
RECUR à partir de maintenant|désormais|dorénavant|à l['’]avenir|chaque (?:réponse|message|fois
 |conversation)|toutes les réponses|systématiquement|\btoujours\b
ROLE administrateur|\badmin\b|\broot\b|super-?utilisateur|\bdan\b|sans (?:aucune )?(?:restrictions?
 |limites?|filtres?|règles?|censure)|non (?:censuré|filtré|restreint)\w*
LOGIN connecté|identifié|inscrit|abonné|authentifié
FROMNOW \b(?:à partir de maintenant|désormais|dorénavant|à partir d['’]aujourd['’]hui)\b
YOUARE \b(?:tu es|vous êtes|tu obéis|vous obéissez|tu travailles pour|vous travaillez pour
 |tu réponds|vous répondez|obéis|obéissez|tu n['’]obéis|vous n['’]obéissez)
YOUARENOW \b(?:tu es|vous êtes) (?:maintenant|désormais|dorénavant)\b
ACTAS \b(?:agis|agissez|comporte-toi|comportez-vous|incarne|incarnez)\b
PERSONAX \b(?:fais|faites) (?:semblant|comme si)\b|\bprétend(?:s|ez) être\b|\bjoue[sz]? le rôle\b
 |\b(?:ton|votre) nouveau rôle|\b(?:tu ne travailles|vous ne travaillez) plus pour
MODE \bmode (?:développeur|dieu|admin\w*|jailbreak|dan|sans restriction)\b
ON \b(?:activée?|actif|enclenchée?)\b
ENABLE \b(?:active[rz]?)\b
PN approbation|autorisation|validation|vérification|contrôle|confirmation|\baccord|justificatif
 |preuve d['’]achat|\breçu\b|ticket de caisse|\blimites?\b|plafond|restriction|pièce d['’]identité
 |authentification
NOLONGER \bn(?:e\b|['’])\s?(?:ont |a )?(?:besoin|nécessit\w*|requi[eè]r\w*|exig\w*
 |demand\w*)%3\bplus\b|\bn(?:e\b|['’])~15\bplus\b~20\b(?:besoin|nécessit|requi[eè]r|exig|demand
 |soumis)\w*
NOLONGERF \bn(?:e\b|['’])%20\bplus\b%15(?:nécessaires?|requise?s?|obligatoires?|exigée?s?
 |demandée?s?)
LIFTED \b(?:a|ont) été\b%10(?:levée?s?|supprimée?s?|retirée?s?|abolie?s?|suspendue?s?)
ALLCUST \b(?:tous les clients|chaque client)\b
GET \b(?:reçoi\w*|ont droit|a droit|obtien\w*|bénéficie\w*)
PERK remise|remboursement|réduction|gratuit|rabais
WITHOUT \bsans\b
CMD \bscripts?\b|\bshell\b|\bterminal\b|\bconsole\b|\bbash\b|\bpowershell\b|lignes? de commande
 |invite de commandes?|commandes? (?:suivantes?|shell|système|bash|ci-dessous)|\b(?:cette
 |ces) commandes?|commandes?\s*[:`'"]
ART (?:\b(?:le|la|les|ce|cet|cette|ces|un|une|du|des|moi)\b|l['’])
RUN \b(?:exécute(?= <ART>)|exécutez|lance|lancez|tape|tapez|saisis|saisissez)\b
RUNX \btélécharge(?:z)?\b~50\b(?:exécute|lance)\w*
DN \b(?:données|enregistrements|fichiers|clients|utilisateurs|comptes|commandes|messages|tables
 |sauvegardes|e-?mails|courriels|logs|journaux|dossiers|répertoires|projets|entrées)\b
ALL \b(?:tou(?:te)?s|l['’]ensemble|l['’]intégralité)\b
DEL \b(?:supprime[rz]?|efface[rz]?|détrui(?:s|sez|re)|vide[rz]?|purge[rz]?|réinitialise[rz]?)\b
DB \bla base(?: de données)?\b
CALL \b(?:appelle[rz]?|invoque[rz]?|utilise[rz]?|lance[rz]?|exécute(?= <ART>)|exécute[rz])\b
"""

_ES = r"""
NEG \b(?:no|nunca|jamás|ningun\w*|ningún|nadie|ni|tampoco)\b
QUAL \b(?:anterior(?:es)?|previ[oa]s?|precedentes?|de arriba|iniciales?|originales?|del sistema
 |tod[oa]s|tus|sus|vuestras|antiguas)\b
OLD \b(?:anterior(?:es)?|previ[oa]s?|precedentes?|de arriba|iniciales?|originales?|antiguas)\b
NOUN \b(?:instrucci(?:ón|ones)|indicaciones|reglas|normas|directrices|órdenes|pautas|prompts?
 |consignas)\b
IGN \b(?:ignora|ignore|ignoren|ignorad|ignóral[ao]s|olvida|olvide|olviden|olvidad|olvídate|olvídese
 |omite|omita|omitan|descarta|descarte|desatiende|desatienda|pasa por alto|pase por alto
 |haz caso omiso|haga caso omiso|sáltate|sáltese)\b
IGNX \bolvid\w*~10\btodo lo (?:anterior|que te)
NOFOLLOW \b(?:no|ya no) (?:sigas|siga|sigan|obedezcas|obedezca|cumplas|cumpla|respetes|respete)\b
VOID (?:\bya no (?:son|están|aplican|se aplican|valen|rigen|tienen)\b|\b(?:son|están|quedan|han sido
 |fueron|quedaron)\b%15(?:obsolet|anulad|revocad|reemplazad|sustituid|derogad|cancelad|inválid
 |sin efecto)\w*)
PROMPT prompt (?:del sistema|de sistema|inicial)|mensaje del sistema|instrucciones (?:ocultas
 |secretas|internas|del sistema|iniciales|originales)|\b(?:tu|su|tus|sus) (?:configuración
 |instrucciones|reglas|ajustes|prompt)
SECRET contraseñas?|\bclaves? (?:de (?:api|acceso)|secretas?|privadas?)|credenciales|api[ _-]?keys?
 |tokens? de acceso|\b(?:tu|su) token\b|variables? de entorno|\bsecretos?\b
SHOW \b(?:revela|revele|revelen|muestra|muestre|muestren|muéstrame|muéstreme|enseña|enseñe|enséñame
 |imprime|imprima|dime|dígame|dame|deme|comparte|comparta|divulga|divulgue|filtra|filtre|pásame
 |expón|exponga|proporciona|proporcione|facilita|facilite|lista|liste)\b
ECHO \b(?:repite|repita|escribe|escriba|copia|copie)\b
SEND \b(?:envía|envíe|envíen|enviad|mándal[oa]s?|manda|mande|reenvía|reenvíe|copia|copie|sube|suba
 |transmite|transmita|publica|publique|cco|bcc|cc|con copia oculta)\b|\bpon(?:ga)? en copia\b
 |\b(?:debes|debe|tienes que|tiene que|hay que)~10\b(?:enviar|reenviar|copiar|subir|mandar
 |transmitir)\b
DATA \bhistorial\b|\bconversaci(?:ón|ones)\b|\bchats?\b|\btranscripci(?:ón|ones)\b
 |\bdatos (?:de (?:los )?clientes?|personales|de (?:los )?usuarios?|del cliente)|todos los datos
 |bases? de datos|registros de clientes|expedientes|todos los (?:mensajes|correos|registros)
 |todas las (?:respuestas|conversaciones)|cada (?:respuesta|mensaje)|credenciales|contraseñas
 |\btodo(?= a\b)
RECUR a partir de ahora|de ahora en adelante|desde ahora|en adelante|\bsiempre\b|cada (?:respuesta
 |mensaje|vez)|todas las respuestas|\ben cada\b
ROLE administrador|\badmin\b|\broot\b|superusuario|\bdan\b|sin (?:ningun[ao]? )?(?:restricci(?:ón
 |ones)|límites?|filtros?|reglas|censura)
LOGIN conectad|identificad|registrad
FROMNOW \b(?:a partir de ahora|de ahora en adelante|desde ahora)\b
YOUARE \b(?:eres|es usted|serás|obedeces|obedece|obedecerás|obedéceme|trabajas para|trabaja para
 |respondes a|solo (?:me )?obedeces)\b
YOUARENOW \b(?:ahora eres|ahora es usted|eres ahora|es usted ahora)\b
ACTAS \b(?:actúa|actúe|compórtate|compórtese|haz de|haga de|interpreta|interprete)\b
PERSONAX \b(?:finge|finja|hazte pasar por|hágase pasar por|haz como si|haga como si)\b|\b(?:tu
 |su) nuevo (?:rol|papel)\b|\bya no trabaja(?:s)? para\b
MODE \bmodo (?:desarrollador|dios|administrador|jailbreak|dan|sin restricciones)\b
ON \b(?:activad[oa]|habilitad[oa]|encendid[oa]|activo)\b
ENABLE \b(?:activa|active|habilita|habilite)\b
PN \b(?:aprobaci(?:ón|ones)|autorizaci(?:ón|ones)|verificaci(?:ón|ones)|validaci(?:ón|ones)
 |comprobaci(?:ón|ones)|confirmaci(?:ón|ones)|identificaci(?:ón|ones)|identidad|revisi(?:ón|ones)
 |recibo|comprobante|factura|límites?|tope|restricci(?:ón|ones)|control)\b
NOLONGER \bya no (?:se )?(?:requiere|requieren|necesita|necesitan|exige|exigen|hace falta
 |hacen falta|es necesari[oa]|es obligatori[oa]|son necesari[oa]s)\b
NOLONGERF \bya no (?:es|son|será|serán|se requiere|se necesita)\b
LIFTED \b(?:ha sido|fue|han sido|fueron|queda|quedan|se ha|se han)\b%10(?:eliminad|suprimid|levantad
 |retirad|abolid|anulad|suspendid)
ALLCUST \b(?:todos los clientes|cada cliente)\b
GET \b(?:reciben|recibe|obtienen|obtiene|tienen derecho|tiene derecho)\b
PERK descuento|reembolso|gratis|reintegro
WITHOUT \bsin\b
CMD \b(?:comandos?|scripts?|shell|terminal|consola|bash|powershell|línea de comandos)\b
RUN \b(?:ejecuta|ejecute|ejecuten|ejecutad|corre|corra|lanza|lance|teclea|teclee)\b
RUNX \bdescarga\b~40\b(?:ejecút|córr|ejecuta|corre)\w*
DN \b(?:datos|registros|archivos|ficheros|clientes|usuarios|cuentas|pedidos|mensajes|tablas
 |copias de seguridad|backups|correos|logs|carpetas|proyectos)\b
ALL \btod[oa]s\b
DEL \b(?:borra|borre|elimina|elimine|suprime|suprima|vacía|vacíe|purga|purgue|destruye|destruya)\b
DB \b(?:la )?base de datos\b
CALL \b(?:llama|llame|invoca|invoque|ejecuta|ejecute)\b
"""

_PT = r"""
NEG \b(?:não|nunca|jamais|nenhu\w*|ninguém|nem)\b
QUAL \b(?:anteriores?|prévi[oa]s?|precedentes?|acima|iniciais|inicial|originais|original|do sistema
 |tod[oa]s|suas|seus|tuas|antigas)\b
OLD \b(?:anteriores?|prévi[oa]s?|precedentes?|acima|iniciais|originais|antigas)\b
NOUN \b(?:instruç(?:ão|ões)|regras|diretrizes|orientaç(?:ão|ões)|ordens|prompts?|normas|comandos)\b
IGN \b(?:ignore|ignora|ignorem|esqueça|esqueçam|esquece|desconsidere|desconsidera|desconsiderem
 |descarte|descarta|despreze|despreza|pule|pula|deixe de lado)\b
IGNX \besqueç\w*~10\btudo (?:o que|acima|antes)
NOFOLLOW \b(?:não|já não) (?:siga|sigas|obedeça|cumpra|respeite)\b|\b(?:deixe|deixa|pare
 |para) de (?:seguir|obedecer|cumprir)\b
VOID (?:\bnão (?:são|estão|valem|se aplicam) mais\b|\bjá não (?:valem|se aplicam|são válidas)\b
 |\b(?:são|estão|foram|ficam)\b%15(?:obsolet|anulad|revogad|substituíd|cancelad|inválid
 |sem efeito)\w*)
PROMPT prompt (?:do sistema|de sistema|inicial)|mensagem do sistema|instruções (?:ocultas|secretas
 |internas|do sistema|iniciais|originais)|\b(?:sua|suas|tua|tuas|seu|seus) (?:configuraç(?:ão|ões)
 |instruções|regras|prompt)
SECRET \bsenhas?\b|credenciais|\bchaves? (?:de api|da api|secretas?|privadas?|de acesso)
 |api[ _-]?keys?|tokens? de acesso|\b(?:seu|teu) token\b|variáveis de ambiente|\bsegredos?\b
SHOW \b(?:revele|revela|mostre|mostra|mostrem|exiba|exibe|imprima|imprime|diga|diz|me dê|dê-me
 |me passa|compartilhe|compartilha|divulgue|divulga|forneça|fornece|liste|lista)\b
ECHO \b(?:repita|repete|escreva|escreve|copie)\b
SEND \b(?:envie|envia|enviem|mande|manda|encaminhe|encaminha|reencaminhe|copie|copia|suba|transmita
 |transmite|publique|publica|cco|bcc|cc|com cópia oculta)\b|\bfaça upload\b|\bcoloque em cópia\b
 |\b(?:deve|tem que|tem de|precisa)~10\b(?:enviar|encaminhar|copiar|mandar|transmitir)\b
DATA \bhistórico\b|\bconversas?\b|\btranscriç(?:ão|ões)\b|\bdados (?:dos? clientes?|pessoais
 |de usuários?|do usuário)|todos os dados|(?:banco|base) de dados|registros de clientes
 |\bcadastros\b|todas as (?:mensagens|respostas|conversas)|todos os (?:e-?mails|registros)
 |cada (?:resposta|mensagem)|credenciais|\bsenhas\b|\btudo(?= para\b)
RECUR a partir de agora|de agora em diante|daqui em diante|doravante|\bsempre\b|cada (?:resposta
 |mensagem|vez)|todas as respostas
ROLE administrador|\badmin\b|\broot\b|superusuário|\bdan\b|sem (?:nenhuma )?(?:restriç(?:ão|ões)
 |limites|filtros|regras|censura)
LOGIN conectad|logad|identificad
FROMNOW \b(?:a partir de agora|de agora em diante|daqui em diante|doravante)\b
YOUARE \b(?:você é|tu és|você obedece|obedeça|você trabalha para|responda apenas|você será)\b
YOUARENOW \b(?:você agora é|agora você é|você é agora)\b
ACTAS \b(?:aja|age|atue|atua|comporte-se|interprete|assuma o papel)\b
PERSONAX \b(?:finja|finge|faça de conta|faça-se passar por)\b|\b(?:seu|teu) novo papel\b
 |\bnão trabalha mais para\b|\bjá não trabalha para\b
MODE \bmodo (?:desenvolvedor|deus|administrador|jailbreak|dan|sem restrições)\b
ON \b(?:ativad[oa]|habilitad[oa]|ligad[oa]|ativo)\b
ENABLE \b(?:ative|ativa|habilite|habilita)\b
PN \b(?:aprovaç(?:ão|ões)|autorizaç(?:ão|ões)|verificaç(?:ão|ões)|validaç(?:ão|ões)|confirmaç(?:ão
 |ões)|identificaç(?:ão|ões)|identidade|revisão|comprovante|recibo|nota fiscal|limites?|teto
 |restriç(?:ão|ões)|controle)\b
NOLONGER \bnão (?:é|são|será|serão) mais (?:necessári|obrigatóri|exigid|requerid)\w*
 |\b(?:não (?:precisa|precisam|exige|exigem|requer|requerem) mais|já não (?:precisa|precisam|exige
 |exigem|requer|requerem))\b
NOLONGERF \b(?:não (?:é|são|será|serão) mais|já não (?:é|são))\b
LIFTED \b(?:foi|foram|está|estão|ficou)\b%10(?:removid|suspens|eliminad|abolid|retirad|levantad)
ALLCUST \b(?:todos os clientes|cada cliente)\b
GET \b(?:recebem|recebe|ganham|ganha|têm direito|tem direito)\b
PERK desconto|reembolso|grátis|estorno
WITHOUT \bsem\b
CMD \b(?:comandos?|scripts?|shell|terminal|console|bash|powershell|linha de comando)\b
ART \b(?:o|a|os|as|este|esta|esse|essa|isto|isso|um|uma|no|na|seguinte)\b
RUN \b(?:execute(?= <ART>)|executa|executem|rode|roda|rodem|digite)\b
RUNX \bbaixe\b~40\b(?:execute|executa|rode)\b
DN \b(?:dados|registros|arquivos|clientes|usuários|contas|pedidos|mensagens|tabelas|backups
 |cópias de segurança|e-?mails|cadastros|logs|pastas|projetos)\b
ALL \btod[oa]s\b
DEL \b(?:apague|apaga|exclua|exclui|delete|deleta|elimine|elimina|remova|destrua|esvazie|purgue)\b
DB \b(?:o )?(?:banco|base) de dados\b
CALL \b(?:chame|chama|invoque|invoca|execute(?= <ART>)|executa)\b
"""

_IT = r"""
NEG \b(?:non|mai|nessun\w*|né|niente|nulla)\b
QUAL \b(?:precedenti|sopra|iniziali|originali|del sistema|di sistema|tutte|tutti|le tue|le sue
 |vostre|di prima|vecchie)\b
OLD \b(?:precedenti|sopra|iniziali|originali|di prima|vecchie)\b
NOUN \b(?:istruzion[ei]|regole|direttive|indicazioni|linee guida|prompt|ordini|consegne|norme)\b
IGN \b(?:ignora|ignori|ignorate|ignorare|dimentica|dimentichi|dimenticate|trascura|trascuri
 |tralascia|tralasci|scarta|scarti|salta|bypassa)\b
IGNX \bdimentic\w*~10\btutto (?:quello|ciò)\b
NOFOLLOW \bnon (?:seguire|seguite|segua|obbedire|obbedite|rispettare|rispettate)\b
VOID (?:\bnon (?:sono|valgono|si applicano) più\b|\b(?:sono|vengono|sono state)\b%15(?:obsolet
 |annullat|revocat|sostituit|abrogat|cancellat|superat|decadut)\w*)
PROMPT prompt (?:di sistema|del sistema|iniziale)|messaggio di sistema|istruzioni (?:nascoste
 |segrete|interne|di sistema|del sistema|iniziali|originali)|\b(?:la tua|la sua|le tue|le sue|il tuo
 |il suo) (?:configurazione|impostazioni|istruzioni|regole|prompt)
SECRET \bpassword\b|credenziali|\bchiav[ei] (?:api|segret[ae]|privat[ae]|di accesso)|api[ _-]?keys?
 |token di accesso|\b(?:il tuo|il suo) token\b|variabili d['’]ambiente|\bsegreti\b
SHOW \b(?:rivela|riveli|rivelate|mostra|mostri|mostrate|mostrami|stampa|stampi|dimmi|mi dica|dammi
 |mi dia|condividi|condivida|divulga|divulghi|comunica|comunichi|fornisci|fornisca|elenca|elenchi)\b
ECHO \b(?:ripeti|ripeta|scrivi|scriva|copia)\b
SEND \b(?:invia|invii|inviate|manda|mandi|mandate|inoltra|inoltri|inoltrate|copia|copi|trasmetti
 |trasmetta|pubblica|pubblichi|ccn|bcc|cc|in copia nascosta)\b|\bmett[ia] in copia\b
 |\bcarica(?:li)? su\b|\b(?:devi|deve|dovete)~10\b(?:inviare|inoltrare|copiare|mandare
 |trasmettere)\b
DATA \bcronologia\b|\bconversazion[ei]\b|\bchat\b|\btrascrizion[ei]\b|\bdati (?:dei clienti
 |del cliente|personali|degli utenti|utente)|tutti i dati|\bdatabase\b|banca dati|archivio clienti
 |tutti i (?:messaggi|record)|tutte le (?:risposte|conversazioni|email)|ogni (?:risposta|messaggio)
 |credenziali|\bpassword\b|\btutto(?= a\b)
RECUR d['’]ora in poi|da ora in poi|da adesso|da questo momento|\bsempre\b|ogni (?:risposta
 |messaggio|volta)|tutte le risposte|\bin futuro\b
ROLE amministratore|\badmin\b|\broot\b|superutente|\bdan\b|senza (?:alcun[ae]? )?(?:restrizioni
 |limiti|filtri|regole|censura)
LOGIN connesso|collegat|autenticat
FROMNOW \b(?:d['’]ora in poi|da ora in poi|da adesso in poi|da questo momento)\b
YOUARE \b(?:sei|lei è|obbedisci|obbedisce|lavori per|lavora per|rispondi (?:solo )?a)\b
YOUARENOW \b(?:ora sei|adesso sei|sei ora|sei adesso|lei ora è)\b
ACTAS \b(?:agisci|agisca|comportati|si comporti|interpreta|impersona)\b
PERSONAX \b(?:fingi|finga|fai finta|faccia finta)\b|\b(?:il tuo|il suo) nuovo ruolo\b
 |\bnon lavor[ia] più per\b
MODE \bmodalità (?:sviluppatore|dio|admin\w*|jailbreak|dan|senza restrizioni)\b
ON \b(?:attivata|abilitata|attiva|accesa)\b
ENABLE \b(?:attiva|attivi|abilita|abiliti)\b
PN \b(?:approvazion[ei]|autorizzazion[ei]|verific[ah]e?|convalida|conferma|identificazione|identità
 |controll[oi]|ricevuta|scontrino|prova d['’]acquisto|limit[ei]|tetto|massimale|restrizion[ei])\b
NOLONGER \bnon (?:richiedono|richiede|necessitano|necessita|servono|serve) più\b
 |\bnon c['’]è più bisogno\b
NOLONGERF \bnon (?:è|sono|sarà|saranno) più\b%10(?:necessari|richiest|obbligatori)
LIFTED \b(?:è stat[oa]|sono stat[ei]|viene|vengono)\b%10(?:rimoss|eliminat|abolit|sospes|revocat
 |tolt)
ALLCUST \b(?:tutti i clienti|ogni cliente)\b
GET \b(?:ricevono|riceve|ottengono|ottiene|hanno diritto|ha diritto)\b
PERK sconto|rimborso|gratis|gratuit
WITHOUT \bsenza\b
CMD \b(?:comand[oi]|script|shell|terminale|console|bash|powershell|riga di comando)\b
RUN \b(?:esegui|esegua|eseguite|lancia|lanci|avvia|avvii|digita|digiti)\b
RUNX \bscarica\b~40\b(?:esegui|avvia|lancia)\w*
DN \b(?:dati|record|file|clienti|utenti|account|ordini|messaggi|tabelle|backup|email|log|progetti
 |cartelle)\b
ALL \btutt[ie]\b
DEL \b(?:elimina|elimini|cancella|cancelli|svuota|svuoti|distruggi|distrugga|rimuovi|rimuova)\b
DB \b(?:il )?database\b
CALL \b(?:chiama|chiami|invoca|invochi|esegui|esegua|usa|usi)\b
"""

_NL = r"""
NEG \b(?:niet|nooit|geen|niets|niemand)\b
POST \b(?:niet|nooit)\b
QUAL \b(?:vorige|eerdere|voorgaande|bovenstaande|oorspronkelijke|initiële|alle|je|jouw|uw|oude
 |systeem)\w*
OLD \b(?:vorige|eerdere|voorgaande|bovenstaande|oorspronkelijke|oude)\b
NOUN \w*(?:instructies?|regels|richtlijnen|aanwijzingen|prompts?|voorschriften)\b
IGN \b(?:negeer|negeert|vergeet|omzeil|omzeilt)\b
IGNF (?<!\bte )\b(?:negeren|vergeten)\b
IGNX \bvergeet\b~10\balles\b~30(?:gezegd|hierboven|eerder|geleerd)
NOFOLLOWF \bniet (?:meer|langer)\b~20\b(?:volgen|opvolgen|gehoorzamen)\b
DISOBEYX \b(?:volg|volgt|gehoorzaam)\b~40<NOUN>%20\bniet (?:meer|langer)\b
 |\bhoud(?:t)? geen rekening (?:meer )?met\b~20<QUAL>
VOID \b(?:zijn|gelden|worden|werden)\b%20(?:niet (?:meer|langer) geldig|vervallen|vervangen
 |ingetrokken|ongeldig|verouderd|opgeheven|achterhaald)
PROMPT systeem-?prompt|systeembericht|systeeminstructies|(?:verborgen|geheime|interne
 |oorspronkelijke) (?:instructies|prompt|configuratie|regels)|\b(?:je|jouw|uw) (?:configuratie
 |instellingen|instructies|regels|prompt)
SECRET \w*wachtwoord(?:en)?\b|inloggegevens|\w*api-?(?:sleutel|key)s?\b|\w*(?:toegangs|access
 |api)-?tokens?\b|omgevingsvariabelen?|\bgeheimen\b|privésleutels?
SHOW \b(?:toon|toont|onthul|onthult|print(?= <ART>)|vertel|zeg|deel|noem|geef (?:mij|me|ons))\b
ECHO \b(?:herhaal|schrijf)\b
REVEALX \blaat\b~40<OBJ>~15\bzien\b|\bdruk\b~40<OBJ>~15\baf\b|\b(?:mij|me
 |ons)\b~30<OBJ>~30\b(?:tonen|laten zien|vertellen|geven|delen|onthullen|sturen|printen)\b
SEND \b(?:stuur|stuurt|verstuur|verstuurt|zend|doorsturen|forward(?= <ART>)|kopieer|kopieert
 |upload(?= <ART>)|uploaden|verzend|bcc|cc)\b|\b(?:moet|moeten|dient)~20\b(?:sturen|versturen
 |doorsturen|kopiëren|uploaden)\b
DATA \w*geschiedenis\b|\bgesprek(?:ken)?\b|\bchat\b|\btranscript\b|\w*(?:klant|persoons
 |gebruikers)gegevens|alle gegevens|\bdatabase\b|klantenbestand|\bdossiers\b|alle (?:berichten
 |antwoorden|e-?mails|gegevens)|\belk(?:e)? (?:antwoord|bericht)|inloggegevens|wachtwoorden
 |\balles(?= naar\b)
RECUR vanaf nu|voortaan|van nu af aan|\baltijd\b|elke keer|\bbij elk(?:e)? (?:antwoord|bericht)
 |alle antwoorden|in de toekomst
ROLE beheerder|administrator|\badmin\b|\broot\b|superuser|\bdan\b|zonder (?:enige )?(?:beperkingen
 |regels|filters|grenzen|censuur)
LOGIN ingelogd|aangemeld|verbonden
FROMNOW \b(?:vanaf nu|voortaan|van nu af aan)\b
YOUARE \b(?:ben je|bent u|ben jij|gehoorzaam|luister je|werk je voor|werkt u voor)\b
YOUARENOW \b(?:je bent|u bent|jij bent) (?:nu|voortaan|vanaf nu)\b
ACTAS \b(?:gedraag je|gedraagt u zich|speel|treed op)\b
PERSONAX \b(?:doe|doet u) alsof\b|\b(?:je|jouw|uw) nieuwe rol\b|\b(?:je werkt|u werkt) niet (?:meer
 |langer) voor\b
MODE \b(?:ontwikkelaars|developer|god|jailbreak|dan|beheerders)-?(?:modus|mode)\b
ON \b(?:geactiveerd|ingeschakeld|aan|actief)\b
ENABLE \b(?:activeer|schakel)\b
PN \w*(?:goedkeuring|toestemming|verificatie|controle|identificatie|legitimatie|bevestiging|kassabon
 |bonnetje|limiet|beperking|autorisatie|machtiging)\w*
NOLONGERF \b(?:is|zijn|wordt|worden)\b%15\bniet (?:meer|langer) (?:nodig|vereist|verplicht
 |noodzakelijk)
POLICYX \bgeen\b~20<PN>~20\b(?:meer|langer)\b~15\b(?:nodig|vereist|verplicht)
LIFTED \b(?:is|zijn|werd|werden)\b%15(?:opgeheven|verwijderd|afgeschaft|ingetrokken|geschrapt
 |vervallen)
ALLCUST \b(?:alle klanten|elke klant|iedere klant)\b
GET \b(?:krijgen|krijgt|ontvangen|ontvangt|hebben recht|heeft recht)\b
PERK korting|terugbetaling|gratis|restitutie
WITHOUT \bzonder\b
CMD \w*(?:commando|opdrachtregel|script|shell|terminal|console|bash|powershell)\w*
ART \b(?:het|de|dit|deze|een|dat|die)\b
RUN \bvoer(?:t)?\b|\b(?:draai|start)(?= <ART>)
RUNF (?<!\bte )\b(?:uitvoeren|draaien)\b
RUNX \bdownload\b~40\b(?:voer|start|draai)\w*
DN \w*(?:gegevens|records|bestanden|klanten|gebruikers|accounts|bestellingen|berichten|tabellen
 |back-?ups|e-?mails|logs|mappen|projecten)\b
ALL \balle\b
DEL \b(?:verwijder|verwijdert|wis|wist|vernietig|leeg)\b
DB \b(?:de )?(?:volledige |hele )?database\b
CALL \b(?:roep|gebruik)\b
CALLF \baanroepen\b
"""

LANGUAGES = (_FR, _ES, _PT, _IT, _NL)
