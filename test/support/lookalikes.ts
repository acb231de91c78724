/**
 * Markdown that says what the sites' notices say, in every form a notice's cue could take
 * it for: each link and word of every pack's login walls, account locks, limits and
 * challenges, the page helpers' own limit and lock words (obstacles.ts), links named like
 * the controls the flow presses (Copy, Stop, Send), and a composer, a limit and a lock
 * inside a code block. An answer (or a prompt) may hold any of it; none of it is the site
 * speaking. A cue of those roles that no sample meets fails test/e2e/lookalikes.test.ts.
 *
 * Each sample reads back as written from the rendered page (the DOM reader's Markdown:
 * `-` lists, numbered `1.`, tables with `---`), so an answer that holds them all comes
 * back byte for byte from the page too, not only from its Copy.
 */

const loginLinks = [
  '[Log in](/auth/login) or [log in here](https://chatgpt.com/auth/login?next=%2F).',
  'Claude: [Log in](/login) and [Log in](/login?returnTo=%2Fnew).',
  'Gemini: [Sign in](https://accounts.google.com/ServiceLogin?continue=https://gemini.google.com/app), [Sign in](https://accounts.google.com/v3/signin/identifier), [Sign in](/signin).',
  'DeepSeek: [Log in](/sign_in) or [Sign up](/sign_up). Qwen: [Log in](/auth?action=signin), [Sign up](/auth?action=signup), [Log in](/auth).',
  // Every word of ui-words.ts `signin`, as a link's name.
  [
    '- [Sign in](https://example.com/a)',
    '- [Log in](https://example.com/b)',
    '- [Anmelden](https://example.com/c)',
    '- [Se connecter](https://example.com/d)',
    '- [Connexion](https://example.com/e)',
    '- [Iniciar sesión](https://example.com/f)',
    '- [Acceder](https://example.com/g)',
    '- [Fazer login](https://example.com/h)',
    '- [Entrar](https://example.com/i)',
    '- [Войти](https://example.com/j)',
    '- [登录](https://example.com/k)',
    '- [ログイン](https://example.com/l)',
  ].join('\n'),
  'Log in to get answers based on your files.',
];

const locks = [
  '# Suspicious activity detected',
  '## Account locked',
  '## Account suspended',
  '### Account disabled',
  '> Suspicious activity on your account',
  'It looks like someone else may be using your ChatGPT account. Please secure your account to regain access to all features.',
  [
    '1. Your account has been locked.',
    '2. Your account has been suspended.',
    '3. Your account has been disabled.',
    '4. Your account has been deactivated.',
    '5. Your account is locked.',
    '6. Your account is suspended.',
    '7. Your account is disabled.',
    '8. Your account is deactivated.',
  ].join('\n'),
  [
    '| language | words |',
    '| --- | --- |',
    '| de | Verdächtige Aktivität |',
    '| fr | Activité suspecte |',
    '| es | Actividad sospechosa |',
    '| pt | Atividade suspeita |',
    '| ru | Подозрительная активность |',
    '| zh | 可疑活动 |',
    '| ja | 不審なアクティビティ |',
  ].join('\n'),
];

/** Claude's limit cues need the words at the start of an element: each starts a block of its own. */
const limits = [
  "You're out of free messages until 5:00 PM",
  'You are out of free messages until 5:00 PM',
  '### Usage limit reached',
  '- Message limit reached\n- 5-hour limit reached\n- Five-hour limit reached',
  "You've hit your limit",
  "You've reached your usage limit",
  "You've hit your message limit",
  "You're out of extra usage",
  'You are out of extra usage',
  "You've hit your limit for Claude messages. Limits will reset at 9:30 AM.",
  'Limits will reset at 9:30 AM',
  'Free messages return at 5 PM.',
  '> Too many requests: you are making requests too quickly. We have temporarily limited access to your conversations; we temporarily limited your access.',
  "You've reached the message cap, a usage cap hit, reached our rate limit, a message cap reached.",
  'You have reached your daily limit; the limit resets tomorrow.',
  'You reached the limit, reached your limit, then reached the daily limit.',
  'Rate limit exceeded: too frequent. 已达上限 · 达到上限 · 频繁',
  'Daily limit exceeded; you have reached your quota; quota exceeded; quota used up.',
  "You've used all your Pro searches: out of Pro searches, out of free queries, limit exceeded.",
  [
    '| words | where |',
    '| --- | --- |',
    '| hourly cap | a usage limit, a rate cap |',
    '| limit will reset | try again later |',
    '| try again after 5 PM | try again in 5 minutes |',
    '| Nutzungslimit | Limite d’utilisation |',
    '| Límite de uso | Limite de uso |',
    '| лимит | 使用上限 |',
    '| 用量限制 | 次数上限 |',
    '| 利用上限 | limit reached |',
  ].join('\n'),
];

const challenges = ['Verifying...', 'Verifying…', 'Drag the slider below to complete the verification.', 'Just a moment...'];

/** What the flow presses, and what it types into, as an answer may show them. */
const controls = [
  '[Copy](https://example.com/copy) [Stop](https://example.com/stop) [Send](https://example.com/send) [Kopieren](https://example.com/kopieren) **Copy** `Stop generating`',
  [
    '```html',
    '<form data-chatgpt-composer><div contenteditable="true" role="textbox" id="prompt-textarea" aria-label="Ask anything"></div>',
    '<textarea name="prompt-textarea" placeholder="Message Claude"></textarea>',
    '<button data-testid="send-button" aria-label="Send prompt">Send</button> <button data-testid="stop-button" aria-label="Stop streaming">Stop</button>',
    '<div role="alert">You\'ve reached your usage limit. Try again after 5 PM.</div>',
    '<div role="dialog" aria-modal="true"><h2>Suspicious activity detected</h2><button>Got it</button></div>',
    '<a href="/auth/login" data-testid="login-button">Log in</a></form>',
    '```',
  ].join('\n'),
  '---',
];

export const LOOKALIKES: readonly string[] = [...loginLinks, ...locks, ...limits, ...challenges, ...controls];

/** All of them as one answer. */
export const LOOKALIKE_MARKDOWN = LOOKALIKES.join('\n\n');

/**
 * A prompt's first line is the chat's title (the sidebar's history, the tab) and starts the
 * person's turn: each of these, alone on that line, looks like a notice to some pack there
 * (Perplexity's question is an h1; Claude reads any element's first words for a limit;
 * Gemini and Perplexity know a login link by its name; Cloudflare by the tab's title).
 */
export const TITLE_LOOKALIKES = ['Suspicious activity detected', 'Usage limit reached', 'Sign in', 'Just a moment...'] as const;

/** A prompt that the simulated sites answer with `answer` exactly, under `title`. */
export function lookalikePrompt(title: string, answer = LOOKALIKE_MARKDOWN): string {
  return `${title}\n[[sim:echo-markdown]]\n${answer}`;
}
