/**
 * The words provider UIs put on their controls, in the languages most of their users see
 * (en, de, fr, es, pt, ru, zh, ja), so that a pack can find "the send button" by its
 * accessible name whatever language the account uses: a cue's `"name": "@send"` means any
 * of the words below. Each entry is a regular-expression source, matched whole
 * (case-insensitively) against the trimmed accessible name, so "Send" does not match
 * "Send feedback". Add a word here, with all eight languages, when a pack needs one.
 */
export const UI_WORDS = {
  send: [
    'send(?: (?:prompt|message))?',
    'submit',
    '(?:nachricht |prompt )?senden',
    'absenden',
    'envoyer(?: (?:le )?(?:message|prompt))?',
    'enviar(?: (?:mensaje|mensagem|prompt))?',
    'отправить(?: (?:сообщение|запрос))?',
    '发送(?:消息)?',
    '送信(?:する)?',
  ],
  stop: [
    'stop(?: (?:streaming|generating|response|generation))?',
    'stopp',
    '(?:antwort |streaming |generierung )?(?:stoppen|beenden)',
    'anhalten',
    'arrêter(?: la génération)?',
    'detener(?: (?:la )?(?:respuesta|generación))?',
    'parar(?: (?:resposta|geração))?',
    'interromper',
    'остановить(?: (?:генерацию|ответ))?',
    '停止(?:生成|响应)?',
    '生成を停止',
    '停止する',
  ],
  copy: ['copy', 'kopieren', 'copier', 'copiar', 'копировать', 'скопировать', '复制', 'コピー(?:する)?'],
  close: ['close', 'schließen', 'fermer', 'cerrar', 'fechar', 'закрыть', '关闭', '閉じる'],
  dismiss: [
    'dismiss',
    'got it',
    'not now',
    'maybe later',
    'no thanks',
    'ok(?:ay)?',
    'verstanden',
    'nicht jetzt',
    'später',
    'compris',
    'pas maintenant',
    'entendido',
    'ahora no',
    'agora não',
    'понятно',
    'не сейчас',
    '知道了',
    '以后再说',
    '了解',
    '後で',
  ],
  message: [
    '(?:message|ask|send a message to) .{0,40}',
    'ask anything',
    'message',
    'chat input',
    'enter a prompt.{0,40}',
    'nachricht.{0,40}',
    'frag.{0,40}',
    'message à .{0,40}',
    'demandez.{0,40}',
    'mensaje.{0,40}',
    'pregunta.{0,40}',
    'mensagem.{0,40}',
    'pergunte.{0,40}',
    'сообщение.{0,40}',
    'спросите.{0,40}',
    '(?:给|向).{0,40}发送消息',
    '询问.{0,40}',
    '.{0,40}にメッセージを送信',
    '何でも聞いて.{0,10}',
  ],
  retry: ['retry', 'try again', 'regenerate', 'erneut versuchen', 'réessayer', 'reintentar', 'tentar novamente', 'повторить', '重试', '再試行'],
  prefer: [
    'i prefer this(?: response)?',
    '(?:this|response \\d) is better',
    'diese antwort bevorzugen',
    'je préfère cette réponse',
    'prefiero esta respuesta',
    'prefiro esta resposta',
    'я предпочитаю этот ответ',
    '我更喜欢这个回答',
    'この回答を優先',
  ],
  /** A consent banner's least permissive choice: what a careful person clicks. */
  reject: [
    'reject(?: all| non-essential(?: cookies)?| optional cookies| additional cookies)?',
    'decline(?: all| optional cookies)?',
    '(?:use )?(?:strictly )?necessary(?: cookies)? only',
    'only (?:strictly )?necessary(?: cookies)?',
    'alle ablehnen',
    'ablehnen',
    'nur (?:technisch )?notwendige(?: cookies)?',
    'tout refuser',
    'refuser(?: tout)?',
    'rechazar(?: todo| todas)?',
    'solo necesarias',
    'rejeitar(?: tudo| todos)?',
    'apenas necessários',
    'отклонить(?: все)?',
    'только необходимые',
    '拒绝(?:全部|所有)?',
    '仅必要',
    '(?:すべて)?拒否(?:する)?',
    '必須のみ',
  ],
  chat: ['chat', 'чат', '聊天', '对话', 'チャット'],
  signin: [
    'sign in',
    'log in',
    'anmelden',
    'se connecter',
    'connexion',
    'iniciar sesión',
    'acceder',
    'fazer login',
    'entrar',
    'войти',
    '登录',
    'ログイン',
  ],
} as const satisfies Record<string, readonly string[]>;

export type UiWord = keyof typeof UI_WORDS;

export function isUiWord(word: string): word is UiWord {
  return Object.hasOwn(UI_WORDS, word);
}

/** The regular-expression source of `@word`: any of its translations, as the whole name. */
export function uiWordPattern(word: UiWord): string {
  return `^\\s*(?:${UI_WORDS[word].join('|')})\\s*$`;
}
