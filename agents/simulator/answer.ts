/**
 * What a simulated provider does with a prompt: the directives it obeys and the
 * deterministic Markdown it answers with. The answer carries the prompt, the provider's
 * name and the turn number, and a fenced code block with a language, a list and a table,
 * so extraction can be checked byte for byte.
 */
export interface Directives {
  /** Generation time in ms. */
  ms: number;
  /** A pause mid-answer with nothing changing (a reasoning model "thinking"). */
  thinkMs: number;
  /** A long-thinking mode: "Thinking…" and the stop control for this long before the answer begins. */
  thinkFirstMs: number;
  /**
   * Perplexity's research answers (research 2026-11-26): an interim paragraph ("I'll research
   * the primary sources first…") that sits unchanged this long, Stop hidden, before the answer.
   */
  interimMs: number;
  refuse: boolean;
  error: boolean;
  errorOnce: boolean;
  limit: boolean;
  /** How long a `limit` lasts: `[[sim:limit=MS]]`, else 20 minutes (rounded up to the minute the page shows). */
  limitMs: number;
  logout: boolean;
  challenge: boolean;
  hang: boolean;
  /** An error line in the answer, with the stop control left on screen (Gemini, 2026-10-03). */
  errorStuck: boolean;
  /** Like `challenge`, with the bare "Verifying..." interstitial (no Cloudflare scripts in it). */
  verifying: boolean;
  /** Answers, and the session's next page load is the "Choose an account to continue" picker. */
  accountPicker: boolean;
  /** The answer is a generated file (Qwen's PDF card), with no text. */
  fileAnswer: boolean;
  /**
   * The finished answer's wrapper left empty, its copy giving nothing, as Qwen can hydrate a
   * reopened chat (research 2026-11-26): the page loaded again shows the answer.
   */
  hydrateEmpty: boolean;
  /** ChatGPT's account-wide "Too many requests" modal, for 20 minutes. */
  rateLimitModal: boolean;
  /** "Suspicious activity detected": the account is locked until its person secures it. */
  suspicious: boolean;
  /** The answer is the rest of the prompt, as Markdown, and nothing else (`echoedMarkdown`). */
  echoMarkdown: boolean;
  /** How long the site takes to answer the send's request (`[[sim:reply-ms=MS]]`): the page shows Stop meanwhile. */
  replyMs: number;
}

export const DEFAULT_MS = 400;

export function parseDirectives(prompt: string): Directives {
  const has = (name: string) => prompt.includes(`[[sim:${name}]]`);
  const num = (name: string) => {
    const m = new RegExp(`\\[\\[sim:${name}=(\\d+)\\]\\]`).exec(prompt);
    return m ? Number(m[1]) : null;
  };
  return {
    ms: num('ms') ?? DEFAULT_MS,
    thinkMs: num('think') ?? 0,
    thinkFirstMs: num('think-first') ?? 0,
    interimMs: num('interim') ?? 0,
    refuse: has('refuse'),
    error: has('error'),
    errorOnce: has('error-once'),
    limit: has('limit') || num('limit') !== null,
    limitMs: num('limit') ?? 20 * 60_000,
    logout: has('logout'),
    challenge: has('challenge'),
    hang: has('hang'),
    errorStuck: has('error-stuck'),
    fileAnswer: has('file-answer'),
    hydrateEmpty: has('hydrate-empty'),
    accountPicker: has('account-picker'),
    verifying: has('verifying'),
    rateLimitModal: has('rate-limit-modal'),
    suspicious: has('suspicious'),
    echoMarkdown: has('echo-markdown'),
    replyMs: num('reply-ms') ?? 0,
  };
}

/** A fence of backticks longer than any run of backticks in `text` (at least three). */
export function fenceFor(text: string): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  return '`'.repeat(longest + 1);
}

/** A received file as the answer lists it. */
export interface ReceivedFile {
  name: string;
  bytes: number;
  sha256: string;
}

/** The answer's line for a file it received: `- attachment: <filename> (<bytes> bytes, sha256 <hex>)`. */
export function attachmentLine(file: ReceivedFile): string {
  return `- attachment: ${file.name} (${file.bytes} bytes, sha256 ${file.sha256})`;
}

export function simulatedAnswer(providerName: string, provider: string, prompt: string, turn: number, files: readonly ReceivedFile[] = []): string {
  const fence = fenceFor(prompt);
  const body = prompt.endsWith('\n') ? prompt : `${prompt}\n`;
  return [
    `**Simulated ${providerName}** · turn ${turn}`,
    'You asked:',
    `${fence}text\n${body}${fence}`,
    'A code sample:',
    `\`\`\`python\ndef answer_${turn}():\n    return "${provider} turn ${turn}"\n\`\`\``,
    [`- provider: \`${provider}\``, `- turn: ${turn}`, `- characters: ${prompt.length}`, ...files.map(attachmentLine)].join('\n'),
    ['| provider | turn |', '| --- | --- |', `| ${provider} | ${turn} |`].join('\n'),
  ].join('\n\n');
}

export const REFUSAL_TEXT = "I can't help with that request.";

/**
 * What a site titles a chat (in its history, in the tab): the first prompt's first line with
 * words in it, the directives left out, cut to 60 characters, as the sites cut theirs.
 */
export function chatTitle(prompt: string): string {
  const line = prompt
    .replace(/\[\[sim:[^\]]*\]\]/g, '')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  return (line ?? 'New chat').slice(0, 60);
}

const ECHO = '[[sim:echo-markdown]]';

/**
 * `[[sim:echo-markdown]]`: what the prompt says after the directive (the line break right
 * after it left out), for an answer that holds exactly the Markdown a test chose: links,
 * headings, quotes, lists, tables, code, rendered as the site renders them.
 */
export function echoedMarkdown(prompt: string): string {
  return prompt.slice(prompt.indexOf(ECHO) + ECHO.length).replace(/^\r?\n/, '');
}

/** The answer a simulated provider gives to `prompt`, at `turn` of its conversation. */
export function answerTo(providerName: string, provider: string, prompt: string, turn: number, files: readonly ReceivedFile[] = []): string {
  if (!parseDirectives(prompt).echoMarkdown) return simulatedAnswer(providerName, provider, prompt, turn, files);
  // The chosen Markdown, then what the send carried, as its own list.
  const echoed = echoedMarkdown(prompt);
  return files.length ? `${echoed.replace(/\n*$/, '')}\n\n${files.map(attachmentLine).join('\n')}` : echoed;
}
