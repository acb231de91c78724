import { randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';
import { FILE_RULES, type FileLimits } from './file-rules.js';
import { siteUploads, type SentFile } from './uploads.js';
import { answerTo, chatTitle, DEFAULT_MS, parseDirectives, REFUSAL_TEXT } from './answer.js';
import { secondResponse } from './client/second-response.js';
import { accountPickerPage } from './account-picker.js';
import { challengePage, protectedPageScripts, serveCloudflare, verifyingPage } from './cloudflare.js';
import type { DriftKind } from './client/drift-kinds.js';
import type { Boot, Plan } from './client/skin.js';
import { DEFAULT_MODEL } from './client/variant-picker.js';
import type { SimSiteConfig } from './site-config.js';
import { readSiteState, writeSiteState, type Conversation, type InForce, type SimLog } from './site-state.js';

export type { InForce, SimLog } from './site-state.js';

/** The browser code is served from the build; the sources are TypeScript. */
const CLIENT_DIR = join(PACKAGE_ROOT, 'dist', 'agents', 'simulator', 'client');

/**
 * The build of the browser code, named in its address as the real sites name their bundles
 * (`/cdn/assets/<hash>.js`), so a browser keeps each module it loaded and a new chat only
 * runs them again: fetching and compiling them anew on every page was a fifth of what a
 * job cost the test machine's CPU. Read at each page, so a rebuild of the client shows at
 * the next page without restarting the simulator.
 */
function clientBuild(): string {
  let newest = 0;
  for (const entry of readdirSync(CLIENT_DIR, { recursive: true, encoding: 'utf8' })) {
    if (entry.endsWith('.js')) newest = Math.max(newest, statSync(join(CLIENT_DIR, entry)).mtimeMs);
  }
  return Math.round(newest).toString(36);
}

/** The session cookie the login form sets, and how it is read back from a request. */
const SESSION_COOKIE = 'sim_session';
const SESSION_IN_COOKIES = /(?:^|;\s*)sim_session=([^;]+)/;

/** What the simulated account is given in the model picker and mode toggles (client/variant-picker.ts). */
export interface SimVariants {
  /** Ids the account lacks (a free plan): absent from its picker, or shown disabled where the site does so (Perplexity). */
  lacks?: string[];
  /** The picker's and the toggles' words changed beyond recognition ("Option A", "Option B"…). */
  renamed?: boolean;
  /** Ids whose choice seems to go through (the menu closes) but does not take. */
  ignored?: string[];
  /** The picker and toggles show this long after the page, as ChatGPT's has been seen to hydrate late (ms). */
  lateMs?: number;
  /** The picker shows from the start but ignores clicks this long: markup the site's script has not hydrated yet (ms). */
  inertMs?: number;
}

/** How a simulated site looks: one of its layouts, and any drift from its usual markup. */
export interface SimLook {
  /** One of `SimSiteConfig.layouts`; the first when not given. */
  layout?: string;
  drift?: readonly DriftKind[];
  /**
   * The site sits behind Cloudflare: its normal pages carry the bot-detection snippet and an
   * invisible Turnstile widget, neither of which is a challenge (cloudflare.ts).
   */
  turnstile?: boolean;
  /** A cookie-consent banner over the bottom of every page until answered (client/consent-banner.ts). */
  consent?: boolean;
  /** ChatGPT's product announcement (the "beacon" modal) over the first page each session opens (client/account-notices.ts). */
  beacon?: boolean;
  /**
   * A plan's upsell on every page, in a limit's words ("higher usage limits", "unlimited")
   * without saying the account hit one (client/upsell-banner.ts): no limit, nothing to heed.
   */
  upsell?: boolean;
  /** A paste at least this long becomes a "Pasted markdown" file (client/pasted-file.ts). */
  pasteToFileAt?: number;
  /**
   * The chat lives under this prefix, as Gemini's does for a second Google account
   * (`/u/1`: `/u/1/app/<id>`); the unprefixed new chat redirects there.
   */
  userPath?: string;
  /**
   * ChatGPT's provisional routes (research 2026-11-26): a new chat shows `/c/local-<id>`
   * while it answers, and its real address only once the answer is done.
   */
  localRoutes?: boolean;
  variants?: SimVariants;
  /** Lower file limits than the site's (file-rules.ts), so a test can be refused without a huge file. */
  fileLimits?: Partial<FileLimits>;
}

export interface SimSite {
  url: string;
  /** The layout it shows. */
  layout: string;
  log: SimLog;
  /**
   * The cookie of a new signed-in session, as the login form sets it, in the shape a browser
   * context takes it (Playwright's addCookies): a browser given it is signed in without the
   * form (the tests' agents and pages start so; pairing goes through the form).
   */
  session(): { name: string; value: string; url: string; httpOnly: true; sameSite: 'Lax' };
  close(): Promise<void>;
}

/**
 * One simulated provider site on loopback: login page and session cookie, the chat app at
 * the provider's real URL patterns, conversation history per conversation, and the log a
 * test reads (what was sent, where Stop was pressed). With `stateFile`, it keeps its port,
 * sessions, conversations, limits and log there from one run to the next (site-state.ts).
 */
export async function startSiteServer(config: SimSiteConfig, look: SimLook = {}, clock: () => number = Date.now, stateFile?: string): Promise<SimSite> {
  const kept = stateFile ? readSiteState(stateFile) : null;
  const layout = look.layout ?? config.layouts[0];
  if (!config.layouts.includes(layout)) throw new Error(`${config.name} has no layout "${layout}"; it has ${config.layouts.join(', ')}.`);
  const drift = [...(look.drift ?? [])];
  const sessions = new Set<string>(kept?.sessions);
  const newSession = () => {
    const token = randomBytes(16).toString('hex');
    sessions.add(token);
    return token;
  };
  const conversations = new Map<string, Conversation>(kept?.conversations);
  /** Account failures already played, per prompt. */
  const seen = new Set<string>(kept?.seen);
  const limitedUntil = new Map<string, number>(kept?.limitedUntil);
  /** Sessions behind the rate-limit modal, until when; sessions locked until their person secures the account. */
  const rateLimitedUntil = new Map<string, number>(kept?.rateLimitedUntil);
  const locked = new Set<string>(kept?.locked);
  /** Sessions that closed the product announcement (SimLook beacon): it shows on each page until then. */
  const beaconClosed = new Set<string>();
  const beaconFor = (token: string) => !!look.beacon && !beaconClosed.has(token);
  /** Sessions whose next page load Cloudflare answers with its interstitial. */
  const challenged = new Map<string, 'cloudflare' | 'verifying'>();
  const log: SimLog = kept?.log ?? { sends: [], stops: [], finishes: [], logins: 0, prefers: [], dismissals: [], consents: [], picks: 0, variantPicks: 0, ignoredPickerClicks: 0, uploads: [] };
  // A state file from before the simulator took files has no uploads.
  log.uploads ??= [];
  const rules = FILE_RULES[config.provider];
  const uploads = siteUploads(rules, { maxBytes: look.fileLimits?.maxBytes ?? rules.maxBytes, perMessage: look.fileLimits?.perMessage ?? rules.perMessage }, log.uploads, clock);
  /** What each session last sent under: a new chat opens with it, as the real pickers remember the last choice. */
  const lastVariant = new Map<string, InForce>(kept?.lastVariant);
  /** Sessions whose next page load is the account picker. */
  const picking = new Set<string>();
  const prefixed = (path: string) => (look.userPath ? `${look.userPath}${path}` : path);
  const paths = { ...config.paths, newChat: prefixed(config.paths.newChat), conversation: prefixed(config.paths.conversation) };
  const route = (template: string) =>
    new RegExp(`^${escapeRegExp(template).replace('\\{project\\}', '[A-Za-z0-9-]+').replace('\\{id\\}', '([A-Za-z0-9-]+)')}$`);
  const conversationRoutes = [paths.conversation, ...(paths.project ? [paths.project] : [])].map(route);

  const sessionOf = (req: http.IncomingMessage) => {
    const token = SESSION_IN_COOKIES.exec(req.headers.cookie ?? '')?.[1];
    return token && sessions.has(token) ? token : null;
  };

  const page = (res: http.ServerResponse, conversationId: string | null, token: string | null, consented: boolean) => {
    const limited = token ? (limitedUntil.get(token) ?? 0) : 0;
    const turns = conversationId ? conversations.get(conversationId)!.turns : [];
    const last = turns.at(-1);
    const writing = last !== undefined && (last.doneAt === null || last.doneAt > clock()) ? last : null;
    const boot: Boot = {
      provider: config.provider,
      name: config.name,
      conversationId,
      history: (writing ? turns.slice(0, -1) : turns).map(({ prompt, markdown }) => ({ prompt, markdown })),
      answering: writing && {
        prompt: writing.prompt,
        plan: {
          kind: 'answer',
          conversationId,
          turn: turns.length,
          markdown: writing.markdown,
          ms: writing.doneAt === null ? DEFAULT_MS : writing.doneAt - clock(),
          thinkMs: 0,
          interimMs: 0,
          hang: writing.doneAt === null,
          limitResetAt: null,
        },
      },
      chats: token ? [...conversations].reverse().map(([id, { title }]) => ({ id, title })) : [],
      paths: { newChat: paths.newChat, conversation: paths.conversation, transient: look.localRoutes ? '/c/local-{id}' : paths.transient },
      layout,
      drift,
      signedIn: token !== null,
      limitResetAt: limited > clock() ? limited : null,
      notice: token && locked.has(token) ? 'lock' : token && (rateLimitedUntil.get(token) ?? 0) > clock() ? 'rate-limit' : token && beaconFor(token) ? 'beacon' : null,
      consent: !!look.consent && !consented,
      upsell: !!look.upsell,
      pasteToFileAt: look.pasteToFileAt ?? null,
      provisionalUntilDone: !!look.localRoutes,
      variants: {
        lacks: look.variants?.lacks ?? [],
        renamed: !!look.variants?.renamed,
        ignored: look.variants?.ignored ?? [],
        lateMs: look.variants?.lateMs ?? 0,
        inertMs: look.variants?.inertMs ?? 0,
        ...((conversationId ? conversations.get(conversationId)!.variant : undefined) ?? (token ? lastVariant.get(token) : undefined) ?? { model: DEFAULT_MODEL[config.provider], modes: [] }),
      },
    };
    html(
      res,
      200,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${config.title}</title>` +
        `<style>${STYLE}</style>` +
        `<script>window.__SIM_BOOT=${JSON.stringify(boot).replace(/</g, '\\u003c')}</script>` +
        `<script type="module" src="/__sim/client/${clientBuild()}/${config.skin}"></script></head><body>${look.turnstile ? protectedPageScripts() : ''}</body></html>`,
    );
  };

  /**
   * What the site does with a send. Failures that belong to the account (a usage limit, a
   * logout, a challenge) hit the account that receives the prompt the first time the site
   * sees that prompt, so a retry on another account goes through; a limit then lasts
   * until its reset time. `error` fails every attempt, `error-once` only the first.
   */
  const decide = (token: string, body: { conversationId: string | null; prompt: string; variant?: InForce }, files: SentFile[]): Plan => {
    const d = parseDirectives(body.prompt);
    const firstTime = (what: string) => !seen.has(`${what}:${body.prompt}`) && !!seen.add(`${what}:${body.prompt}`);
    const base = { ms: d.ms, thinkMs: d.thinkMs, thinkFirstMs: d.thinkFirstMs, interimMs: d.interimMs, hang: d.hang, limitResetAt: null, markdown: '', conversationId: body.conversationId, turn: 0 };
    const limited = limitedUntil.get(token);
    if (limited && limited > clock()) return { ...base, kind: 'limit', limitResetAt: limited };
    if (locked.has(token) || (d.suspicious && firstTime('suspicious') && locked.add(token))) return { ...base, kind: 'lock' };
    if ((rateLimitedUntil.get(token) ?? 0) > clock()) return { ...base, kind: 'rate-limit' };
    if (d.rateLimitModal && firstTime('rate-limit-modal')) {
      rateLimitedUntil.set(token, clock() + 20 * 60_000);
      return { ...base, kind: 'rate-limit' };
    }
    for (const how of ['cloudflare', 'verifying'] as const) {
      // The page reloads on a challenge; that one load gets the interstitial, as if the
      // person then solved it.
      if (!(how === 'cloudflare' ? d.challenge : d.verifying) || !firstTime(how)) continue;
      challenged.set(token, how);
      return { ...base, kind: 'challenge' };
    }
    if (d.logout && firstTime('logout')) {
      sessions.delete(token);
      return { ...base, kind: 'logout' };
    }
    if (d.limit && firstTime('limit')) {
      // The page says the minute it lifts ("try again after 10:42"): the rest ends on one.
      const resetAt = Math.ceil((clock() + d.limitMs) / 60_000) * 60_000;
      limitedUntil.set(token, resetAt);
      return { ...base, kind: 'limit', limitResetAt: resetAt };
    }
    let id = body.conversationId;
    if (!id || !conversations.has(id)) {
      id = config.newId();
      conversations.set(id, { title: chatTitle(body.prompt), turns: [] });
    }
    const conversation = conversations.get(id)!;
    if (body.variant) conversation.variant = body.variant;
    const turn = conversation.turns.length + 1;
    if (d.errorStuck) return { ...base, kind: 'error', stuck: true, conversationId: id, turn };
    if (d.error || (d.errorOnce && firstTime('error'))) return { ...base, kind: 'error', conversationId: id, turn };
    if (d.accountPicker && firstTime('account-picker')) picking.add(token);
    if (d.fileAnswer) {
      conversation.turns.push({ prompt: body.prompt, markdown: '', doneAt: clock() });
      return { ...base, kind: 'answer', file: `report-${turn}.pdf`, conversationId: id, turn };
    }
    const markdown = d.refuse ? REFUSAL_TEXT : answerTo(config.name, config.provider, body.prompt, turn, files);
    // Done when the page shows it done: after its thinking, its interim paragraph, its stream and its pause.
    const doneAt = d.hang ? null : clock() + d.thinkFirstMs + d.interimMs + d.ms + d.thinkMs;
    conversation.turns.push({ prompt: body.prompt, markdown, doneAt });
    return { ...base, kind: d.refuse ? 'refuse' : 'answer', markdown, conversationId: id, turn, title: conversation.title, ...(d.hydrateEmpty ? { hydrateEmpty: true as const } : {}) };
  };

  const plan = (token: string, body: SendBody): Plan => {
    const files = uploads.take(body.draft ?? null, body.files ?? []);
    const result = decide(token, body, files);
    if (body.variant) lastVariant.set(token, body.variant);
    log.sends.push({
      conversationId: body.conversationId,
      prompt: body.prompt,
      kind: result.kind,
      turn: result.turn || null,
      at: clock(),
      ...(body.attachment ? { attachment: body.attachment } : {}),
      ...(files.length ? { files } : {}),
      ...(body.variant ? { variant: body.variant } : {}),
    });
    return result;
  };

  /** A logged-out page of a site that works without an account answers, but keeps no conversation. */
  const anonymousPlan = (body: SendBody): Plan => {
    const d = parseDirectives(body.prompt);
    const files = uploads.take(body.draft ?? null, body.files ?? []);
    log.sends.push({ conversationId: null, prompt: body.prompt, kind: 'answer', turn: 1, at: clock(), anonymous: true, ...(files.length ? { files } : {}) });
    const markdown = answerTo(config.name, config.provider, body.prompt, 1, files);
    return { kind: 'answer', ms: d.ms, thinkMs: d.thinkMs, interimMs: d.interimMs, hang: d.hang, limitResetAt: null, markdown, conversationId: null, turn: 1 };
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://sim');
    const path = url.pathname;
    try {
      const client = /^\/__sim\/client\/[0-9a-z]+\/(.+)$/.exec(path);
      if (client) return await serveClient(res, client[1]!);
      if (path === '/__sim/log') return json(res, 200, log);
      if (serveCloudflare(path, url, res)) return;
      if (path === paths.login) {
        if (req.method === 'POST') {
          await readBody(req);
          log.logins++;
          res.writeHead(302, { location: paths.newChat, 'set-cookie': `${SESSION_COOKIE}=${newSession()}; Path=/; HttpOnly; SameSite=Lax` });
          return res.end();
        }
        return html(res, 200, loginPage(config));
      }
      const token = sessionOf(req);
      // Cloudflare stands in front of every address: it answers a page load of a
      // challenged session with its interstitial, whatever the path.
      const interstitial = token && req.headers['sec-fetch-dest'] === 'document' ? challenged.get(token) : undefined;
      if (token && interstitial) challenged.delete(token);
      if (interstitial === 'verifying') return html(res, 200, verifyingPage());
      if (token && req.headers['sec-fetch-dest'] === 'document' && picking.delete(token)) return html(res, 200, accountPickerPage(config.title, paths.newChat));
      if (interstitial === 'cloudflare') {
        res.writeHead(403, { 'content-type': 'text/html; charset=utf-8', 'cf-mitigated': 'challenge', 'cache-control': 'no-store' });
        return res.end(challengePage(req.headers.host ?? 'localhost', path));
      }
      if (req.method === 'POST' && path === '/__sim/send') {
        const body = JSON.parse(await readBody(req)) as SendBody & { signedIn: boolean };
        // Only the anonymous page answers logged out; a page loaded signed in finds its session gone.
        const anonymous = config.anonymous && !body.signedIn;
        const reply: Plan | Pick<Plan, 'kind' | 'conversationId' | 'turn'> = !token ? (anonymous ? anonymousPlan(body) : { kind: 'logout', conversationId: body.conversationId, turn: 0 }) : plan(token, body);
        // The send is logged as it arrives; the site may take its time to answer it.
        const { replyMs } = parseDirectives(body.prompt);
        if (replyMs > 0) await new Promise((r) => setTimeout(r, replyMs));
        return json(res, 200, reply);
      }
      if (req.method === 'POST' && path === '/__sim/upload') {
        const reply = await uploads.receive(req, url);
        // Null: the page gave the upload up, and is no longer there to read a reply.
        return reply ? json(res, 200, reply) : res.destroy();
      }
      if (req.method === 'POST' && path === '/__sim/upload-remove') {
        const { draft, id } = JSON.parse(await readBody(req)) as { draft: string; id: string };
        uploads.remove(draft, id);
        return json(res, 200, {});
      }
      if (req.method === 'POST' && path === '/__sim/done') {
        log.finishes.push(JSON.parse(await readBody(req)) as { conversationId: string; turn: number; at: number });
        return json(res, 200, {});
      }
      if (req.method === 'POST' && path === '/__sim/prefer') {
        const { conversationId, choice } = JSON.parse(await readBody(req)) as { conversationId: string; choice: number };
        const last = conversations.get(conversationId)?.turns.at(-1);
        // The pair's first answer is what the conversation holds until told otherwise.
        if (last && choice === 2) last.markdown = secondResponse(last.markdown);
        log.prefers.push({ conversationId, choice });
        return json(res, 200, {});
      }
      if (req.method === 'POST' && path === '/__sim/repeat') {
        const { conversationId, prompt } = JSON.parse(await readBody(req)) as { conversationId: string | null; prompt: string };
        log.sends.push({ conversationId, prompt, kind: 'repeat', turn: null, at: clock() });
        return json(res, 200, {});
      }
      if (req.method === 'POST' && path === '/__sim/dismiss') {
        const dismissal = JSON.parse(await readBody(req)) as { kind: string; button: string };
        log.dismissals.push({ ...dismissal, at: clock() });
        if (dismissal.kind === 'beacon' && token) beaconClosed.add(token);
        return json(res, 200, {});
      }
      if (req.method === 'POST' && path === '/__sim/pick-variant') {
        log.variantPicks++;
        return json(res, 200, {});
      }
      if (req.method === 'POST' && path === '/__sim/ignored-picker-click') {
        log.ignoredPickerClicks++;
        return json(res, 200, {});
      }
      if (req.method === 'POST' && path === '/__sim/pick') {
        log.picks++;
        return json(res, 200, {});
      }
      if (req.method === 'POST' && path === '/__sim/consent') {
        log.consents.push((JSON.parse(await readBody(req)) as { choice: 'accept' | 'reject' }).choice);
        return json(res, 200, {});
      }
      // The account's person secured it (a test stands in for them): the lock is gone.
      if (req.method === 'POST' && path === '/__sim/unlock') {
        locked.clear();
        return json(res, 200, {});
      }
      // The provider lifted the usage limits sooner than it said (a test stands in for it).
      if (req.method === 'POST' && path === '/__sim/lift-limits') {
        limitedUntil.clear();
        return json(res, 200, {});
      }
      if (req.method === 'POST' && path === '/__sim/stop') {
        const stopped = JSON.parse(await readBody(req)) as { conversationId: string; turn: number };
        log.stops.push({ ...stopped, at: clock() });
        // The site stops writing it: the conversation opened again shows it ended.
        const turn = conversations.get(stopped.conversationId)?.turns[stopped.turn - 1];
        if (turn) turn.doneAt = clock();
        return json(res, 200, {});
      }
      if (req.method !== 'GET') return json(res, 404, {});
      if (look.userPath && path === config.paths.newChat) {
        res.writeHead(302, { location: paths.newChat });
        return res.end();
      }
      const conversationId = conversationRoutes.map((r) => r.exec(path)?.[1]).find(Boolean);
      if (path !== paths.newChat && !conversationId) return html(res, 404, '<h1>Not found</h1>');
      const consented = /(?:^|;\s*)sim_consent=/.test(req.headers.cookie ?? '');
      if (!token && config.anonymous && !conversationId) return page(res, null, null, consented);
      if (!token) {
        // A site that works logged out keeps no conversations for it: back to its anonymous app.
        res.writeHead(302, { location: config.anonymous ? paths.newChat : paths.login });
        return res.end();
      }
      if (conversationId && !conversations.has(conversationId)) return html(res, 404, '<h1>Conversation not found</h1>');
      return page(res, conversationId ?? null, token, consented);
    } catch (error) {
      json(res, 500, { error: String(error) });
    }
  });
  // The port it had, where its conversations are; another if that one is taken now.
  await listenOn(server, kept?.port ?? 0).catch(() => listenOn(server, 0));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  const keep = () =>
    stateFile &&
    writeSiteState(stateFile, {
      port,
      sessions: [...sessions],
      conversations: [...conversations],
      limitedUntil: [...limitedUntil],
      seen: [...seen],
      rateLimitedUntil: [...rateLimitedUntil],
      locked: [...locked],
      lastVariant: [...lastVariant],
      log,
    });
  return {
    url: origin,
    layout,
    log,
    session: () => ({ name: SESSION_COOKIE, value: newSession(), url: origin, httpOnly: true, sameSite: 'Lax' }),
    close: () =>
      new Promise((resolve) => {
        keep();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What the page posts to send: the prompt, and the uploaded files (by id, in their chips' order) of its draft. */
interface SendBody {
  conversationId: string | null;
  prompt: string;
  /** ChatGPT's pasted text as a file (client/pasted-file.ts). */
  attachment?: string | null;
  draft?: string | null;
  files?: string[];
  variant?: InForce;
}

function listenOn(server: http.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function serveClient(res: http.ServerResponse, file: string): Promise<void> {
  const path = normalize(join(CLIENT_DIR, file));
  if (!path.startsWith(CLIENT_DIR) || !path.endsWith('.js')) return json(res, 404, {});
  try {
    const source = await readFile(path);
    // The address names the build (clientBuild), so what it serves never changes.
    res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=31536000, immutable' });
    res.end(source);
  } catch {
    json(res, 404, {});
  }
}

function loginPage(config: SimSiteConfig): string {
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>Log in - ${config.title}</title><style>${STYLE}</style></head><body>` +
    `<main class="login"><h1>Log in to ${config.name}</h1><p>Simulated provider: any address and password work.</p>` +
    `<form method="post" action="${config.paths.login}"><label>Email address <input name="email" type="email" autocomplete="username"></label>` +
    `<label>Password <input name="password" type="password" autocomplete="current-password"></label>` +
    `<button type="submit" data-testid="login-submit">Continue</button></form></main></body></html>`
  );
}

const STYLE =
  'body{font:15px system-ui,sans-serif;margin:0;padding:24px;max-width:860px}pre{background:#f4f4f4;padding:8px;overflow:auto}' +
  'table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px}[contenteditable]{border:1px solid #888;min-height:40px;padding:6px}' +
  '.placeholder:before{content:attr(data-placeholder);color:#999}.login label{display:block;margin:8px 0}';

function html(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
