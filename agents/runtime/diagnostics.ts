import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { AgentFailure } from '../../main/core/agent.js';
import { BUNDLE_NAME, DIAGNOSTIC_FILES, DIAGNOSTICS_KEPT, type DiagnosticManifest } from '../../main/core/diagnostics.js';
import { packJson, type ProviderSite, type Role } from '../providers/site.js';

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
  /** Text that must not leave the page in the bundle: the prompt. */
  secrets: string[];
}

/**
 * Keeps a diagnostic bundle for each failed attempt (main/core/diagnostics.ts has the
 * layout): a screenshot with the conversation blurred, the DOM with its words blanked
 * out, and which cue of each role matched. Only the newest bundles are kept; everything
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
    const alive = await page.evaluate(() => !!window.__chatbridge).catch(() => false);
    let cues: DiagnosticManifest['cues'] = {};
    if (alive) {
      const report = await page.evaluate(([json, s]) => window.__chatbridge!.report(window.__chatbridge!.pack(json), s), [packJson(site.page), site.turnScope] as const);
      cues = Object.fromEntries(
        Object.entries(report).map(([role, index]) => {
          const cue = index >= 0 ? site.roles[role as Role]?.[index] : undefined;
          return [role, cue ? { index, kind: cue.kind, css: cue.css } : null];
        }),
      );
      await page.evaluate(([json, secrets]) => window.__chatbridge!.conceal(window.__chatbridge!.pack(json), secrets, true), [packJson(site.page), attempt.secrets] as const);
      try {
        await write(DIAGNOSTIC_FILES.screenshot, await page.screenshot({ timeout: 5_000 }));
        await write(DIAGNOSTIC_FILES.page, await page.evaluate(() => window.__chatbridge!.concealedHtml()));
      } finally {
        await page.evaluate((json) => window.__chatbridge!.conceal(window.__chatbridge!.pack(json), [], false), packJson(site.page)).catch(() => {});
      }
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
      failure: { kind: attempt.failure.kind, message: attempt.failure.message },
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
