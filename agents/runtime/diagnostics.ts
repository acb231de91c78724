import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { AgentFailure } from '../../main/core/agent.js';
import { BUNDLE_NAME, DIAGNOSTIC_FILES, DIAGNOSTICS_KEPT, type DiagnosticManifest } from '../../main/core/diagnostics.js';
import { interfaceWords } from '../providers/interface-words.js';
import { pageWorld } from '../providers/page-world.js';
import { packJson, type ProviderSite, type Role } from '../providers/site.js';

/** How long a page has to show it still answers before its bundle goes without the page's files. */
const ALIVE_MS = 5_000;

/** How long the flow's Stop press may wait for a timed-out attempt's bundle (a hung page may never answer). */
const TIMEOUT_BUNDLE_MS = 10_000;

export interface FailedAttempt {
  /** `<job id>-<attempt>` (AgentTask.label). */
  label: string;
  agentId: string;
  page: Page;
  site: ProviderSite;
  failure: AgentFailure;
  /** When it failed, on the service's clock (the attempt's own times are on it too). */
  at: number;
  /** Text that must not leave the page in the bundle: the prompt, whose words the failure's message may quote. */
  secrets: string[];
}

/** `promise`, or a rejection once ALIVE_MS pass: a hung page may never answer. */
function bounded<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('The page did not answer.')), ALIVE_MS)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** `message` with every word of `secrets` that is not an interface word blanked out (a refusal or an error notice may quote the prompt). */
function withoutWords(message: string, secrets: string[], words: string[]): string {
  const keep = new Set(words);
  const secret = new Set(secrets.flatMap((s) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !keep.has(w)));
  return message.replace(/[\p{L}\p{N}]+/gu, (w) => (secret.has(w.toLowerCase()) ? 'x'.repeat(w.length) : w));
}

/**
 * Keeps a diagnostic bundle for each failed attempt (main/core/diagnostics.ts has the
 * layout): a screenshot blurred but for the page's controls, a copy of the DOM with every
 * word that is not one of the site's interface words blanked out, and which cue of each role
 * matched. None of it depends on the pack finding the conversation, so a bundle carries no
 * conversation text whatever broke; and none of it changes the live page. Only the newest bundles are kept; everything
 * is owner-only, like the rest of the data folder.
 */
export class DiagnosticsKeeper {
  constructor(private readonly root: string) {}

  async keep(attempt: FailedAttempt): Promise<void> {
    const m = BUNDLE_NAME.exec(attempt.label);
    if (!m) return; // not a job's attempt (a site check): nothing to file it under
    const dir = join(this.root, attempt.label);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const { page, site } = attempt;
    const files: string[] = [];
    const write = async (name: string, data: string | Buffer) => {
      await writeFile(join(dir, name), data, { mode: 0o600 });
      files.push(name);
    };
    const world = pageWorld(page);
    const alive = await bounded(world.run(() => true, undefined)).catch(() => false);
    let cues: DiagnosticManifest['cues'] = {};
    if (alive) {
      const report = await world.run((h, [json, s]) => h.report(h.pack(json), s), [packJson(site.page), site.turnScope] as const);
      cues = Object.fromEntries(
        Object.entries(report).map(([role, index]) => {
          const cue = index >= 0 ? site.roles[role as Role]?.[index] : undefined;
          return [role, cue ? { index, kind: cue.kind, css: cue.css } : null];
        }),
      );
      const words = interfaceWords(site);
      // The page as it is (no caret hidden, nothing injected), blurred off the page but for its controls.
      const sharp = await world.run((h, w) => h.controlRects(w), words);
      const shot = await page.screenshot({ timeout: 5_000, caret: 'initial' });
      await write(DIAGNOSTIC_FILES.screenshot, Buffer.from(await world.run((h, [png, r]) => h.blurShot(png, r), [shot.toString('base64'), sharp] as const), 'base64'));
      await write(DIAGNOSTIC_FILES.page, await world.run((h, w) => h.scrubbedHtml(w), words));
    }
    const url = (() => {
      try {
        const u = new URL(page.url());
        return `${u.origin}${u.pathname}`;
      } catch {
        return null;
      }
    })();
    const manifest: DiagnosticManifest = {
      job_id: m[1]!,
      attempt: Number(m[2]),
      agent_id: attempt.agentId,
      provider: site.provider,
      at: attempt.at,
      failure: { kind: attempt.failure.kind, message: withoutWords(attempt.failure.message, attempt.secrets, interfaceWords(site)) },
      page_url: url,
      pack: { version: site.version, checked: site.checked, override: site.override },
      cues,
      files: [...files, DIAGNOSTIC_FILES.manifest],
    };
    await write(DIAGNOSTIC_FILES.manifest, JSON.stringify(manifest, null, 2));
    await this.prune();
  }

  /** Removes all but the newest bundles. */
  private async prune(): Promise<void> {
    const names = (await readdir(this.root).catch(() => [] as string[])).filter((n) => BUNDLE_NAME.test(n));
    if (names.length <= DIAGNOSTICS_KEPT) return;
    const dated = await Promise.all(names.map(async (n) => ({ n, at: (await stat(join(this.root, n))).mtimeMs })));
    dated.sort((a, b) => b.at - a.at);
    await Promise.all(dated.slice(DIAGNOSTICS_KEPT).map(({ n }) => rm(join(this.root, n), { recursive: true, force: true })));
  }
}

/**
 * Gives a timed-out attempt its bundle. The hung page is the evidence, and the flow's
 * answer to an abort (press Stop; then the agent opens a fresh chat) would change it; so
 * the flow runs under `signal`, which passes the scheduler's abort on at once — except a
 * timeout (`timed_out`), passed on only once `keep` has taken the page as it is. A
 * cancelled, expired or shut-down attempt keeps nothing. The abort is passed on after
 * `capMs` even if `keep` never settles: a page that no longer answers must not hold the
 * attempt open.
 */
export class TimeoutBundle {
  readonly signal: AbortSignal;
  private kept: Promise<void> = Promise.resolve();

  constructor(outer: AbortSignal, keep: () => Promise<void>, capMs = TIMEOUT_BUNDLE_MS) {
    const relay = new AbortController();
    this.signal = relay.signal;
    const onAbort = () => {
      if (outer.reason !== 'timed_out') return relay.abort(outer.reason);
      // Real time, not the service's clock: this bounds how long a live page may take to be kept.
      let cap: NodeJS.Timeout | undefined;
      const capped = new Promise<void>((resolve) => (cap = setTimeout(resolve, capMs)));
      this.kept = Promise.race([keep().catch(() => {}), capped]).finally(() => {
        clearTimeout(cap);
        relay.abort(outer.reason);
      });
    };
    if (outer.aborted) onAbort();
    else outer.addEventListener('abort', onAbort, { once: true });
  }

  /** Settles once a timed-out attempt's bundle is kept (or given up on); at once otherwise. */
  settled(): Promise<void> {
    return this.kept;
  }
}
