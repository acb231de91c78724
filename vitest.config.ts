import { chmodSync, mkdtempSync, readFileSync, rmSync, statfsSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The temporary folder of the run (the tests' data folders and SQLite files, Chromium's
 * profiles, the processes they spawn) on the machine's RAM disk when it has a roomy one:
 * every commit of a test service waits for its fsync, and on a disk that was some 7 % of the
 * time and CPU of the browser and API files (2026-11-29). Emptied when the run ends. A small
 * /dev/shm (a container's 64 MB) is left to Chromium, which needs it.
 */
function ramTmpdir(): Record<string, string> {
  try {
    const shm = statfsSync('/dev/shm');
    if (shm.bavail * shm.bsize < 4 * 1024 ** 3) return {};
    const dir = mkdtempSync('/dev/shm/chatbridge-tests-');
    // Open to all as /tmp is: the PostgreSQL tests run initdb as an unprivileged user when root.
    chmodSync(dir, 0o1777);
    // A worker's Chromium may still be writing its profile as the run exits (ENOTEMPTY):
    // tried again for up to 1.5 s, then left behind rather than failing the run's exit.
    process.on('exit', () => {
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      } catch {}
    });
    return { TMPDIR: dir };
  } catch {
    return {};
  }
}

/**
 * Files that need a process of their own: tests of what a process does once (the Chromium
 * host's one-time notes), and the stream flood (6.4 MiB of answer pieces to a reader within
 * 40 s: 3 s alone, and more than 40 s more than once in a process many files had used).
 */
const OWN_PROCESS = ['test/e2e/chromium-host.test.ts', 'test/integration/stream-limits.test.ts'];

/**
 * The dashboard's component tests, in happy-dom: they share their processes (a process and a
 * happy-dom each cost the 13 files 14 CPU-seconds and 8 s, shared about 5 and 4 s), so what a
 * test leaves on the page is cleared after every test by their setup file.
 */
const DASHBOARD = ['test/renderer/**/*.test.tsx'];

/**
 * Files that time processes they spawn against real-time bounds ("reaches the running server
 * within one second", a lease running out, a kill and a restart): they run first, before the
 * browsers load the machine (with three browser workers beside them they ran out of time on a
 * loaded machine). Three at a time: they mostly wait on their processes, and two left 30 % of
 * the machine idle (111 s against 95 s, 2026-11-29). Of them, npm test runs crash-recovery
 * (a kill and a restart lose no job); the rest are PROCESSES.
 */
const TIMED_PROCESSES = [
  'test/cli/*.test.ts',
  'test/integration/{cli-security,hosted-cli,ask-command,cluster,crash-recovery,webhooks-process,mcp-server}.test.ts',
  'test/store/pg-{devices,keys-cli,settings-cli,usage-jobs-cli}.test.ts',
];

/*
 * What `npm run test:full` (and CI) runs after npm test, in vitest.breadth.config.ts, so that
 * the suite people run often stays within minutes on two cores: npm test took 11 min 44 s in
 * a clone with nothing beside it, and 13 min beside ../shared, with them (2026-11-30). No test
 * is dropped: CI runs both. A new file is npm test's until it is listed here.
 */

/**
 * The product as processes: the command line, `serve` and its clusters, MCP over stdio, the
 * build. Each step pays a process's start (a third of a CPU-second for a command, one to two
 * for a service): some 300 CPU-seconds of the run's 1 390. npm test drives the same service in
 * its own process (test/api, test/integration), and kills and restarts one (crash-recovery).
 */
export const PROCESSES = [
  'test/cli/*.test.ts',
  'test/integration/{cli-security,hosted-cli,ask-command,cluster,webhooks-process,mcp-server,mcp-tasks,build-once}.test.ts',
  'test/store/pg-{devices,keys-cli,settings-cli,usage-jobs-cli}.test.ts',
];

/** The type check, which the build leaves out (scripts/compile.js): test:full runs it. */
export const TYPE_CHECK = 'test/integration/typecheck.test.ts';

/**
 * The breadth of the browser matrix. npm test keeps each provider's suite on its default
 * layout (provider-suite.ts), the account's safety, pairing, the pause sample, a job's files
 * through the API on ChatGPT and Gemini, a variant through the API, a cancel before the send,
 * the page world's own tests and the captured real pages. Here:
 * - each provider's other layouts (a job's files on them too) and the drift sample, and the
 *   simulated sites' own file controls site by site;
 * - behaviours tried on every provider's page, or on several: variants, the end of an answer,
 *   each site's file control, a job's files on the other sites, upsell banners, lookalike
 *   notices, Cloudflare's challenge, a send the page is busy with, the paste that lands late,
 *   the page that changed, a lock on the working page, a second Google account, the healing
 *   after a challenge, a long variant's timeout;
 * - the service with real browsers and more: `serve --simulate` as a process (its clean stop,
 *   the model used, `sites check`, MCP, two devices, a cluster), the dashboard's pages in
 *   Chromium, an agent's proxy.
 */
export const BREADTH = [
  'test/e2e/layouts/**/*.test.ts',
  'test/e2e/drift-sample-*.test.ts',
  'test/e2e/collect-drifted.test.ts',
  'test/e2e/drift-mode.test.ts',
  'test/e2e/simulator-attachments.test.ts',
  'test/e2e/{variants,long-variant,finish-evidence,attachments,attachment-jobs-other-sites,upsell-banner,lookalike-sample,challenge,send-wait,prompt-fidelity,site-changed,fresh-page,gemini-second-account,self-healing}.test.ts',
  'test/e2e/{clean-stop,model-used,site-health,mcp-simulated,devices,cluster-simulated,dashboard,usage,agent-proxy}.test.ts',
];

/**
 * vitest's order (a stable sort: its order within each rank), with the longest kinds of file
 * first, so that the short ones fill the run's end: the type check; the files that only run a
 * suite written elsewhere (`providerSuite('qwen')`, a drift sample, a job's files on other
 * sites); the browser files and the captured pages; the service's files; then the unit,
 * desktop and dashboard files, which take a second or less. Without a record of past
 * durations (a fresh clone, as CI's) vitest runs the biggest files first: npm test's six
 * provider suites, a line each, were its last 90 s; with them first, a 1-test browser file of
 * 26 s that mostly waits was its end, begun after 330 unit files (2026-11-30).
 */
export class LongestKindsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const path = file.moduleId;
      if (path.endsWith(`/${TYPE_CHECK}`)) return 0;
      if (runsASuiteOnly(path)) return 1;
      if (/\/test\/(?:e2e|real-pages)\//.test(path)) return 2;
      return /\/test\/(?:api|store|integration|cli)\//.test(path) ? 3 : 4;
    };
    return sorted.map((file, i) => ({ file, i })).sort((a, b) => rank(a.file) - rank(b.file) || a.i - b.i).map(({ file }) => file);
  }
}

/** A test file with no test or block of its own: it calls a suite another module defines. */
function runsASuiteOnly(path: string): boolean {
  return !/\b(?:it|test|inOrder|describe\w*)(?:\.\w+)?\s*\(/.test(readFileSync(path, 'utf8'));
}

/**
 * With CHATBRIDGE_TEST_REPORT_DIR set (by .ci/run), each run also writes its counts there as
 * JSON, named for the run, so that CI can add up npm test and the breadth.
 */
export function reporters(run: string): (string | [string, Record<string, unknown>])[] {
  const dir = process.env.CHATBRIDGE_TEST_REPORT_DIR;
  return dir ? ['default', ['json', { outputFile: `${dir}/${run}.json` }]] : ['default'];
}

export default defineConfig({
  // The dashboard's component tests are TSX (React 17+ JSX runtime, as in renderer/vite.config.ts).
  oxc: { jsx: { runtime: 'automatic' } },
  test: {
    // The full drift matrix runs on its own (npm run test:drift, vitest.drift.config.ts);
    // npm run test:full runs a sample of it (test/e2e/drift-sample.ts, in the breadth).
    exclude: [...configDefaults.exclude, 'test/drift/**', ...PROCESSES, ...BREADTH, TYPE_CHECK],
    reporters: reporters('npm-test'),
    sequence: { sequencer: LongestKindsFirst },
    // Agents pause between jobs in a real install (settings-store.ts); the suite runs at full
    // speed, in its own processes and the services it spawns alike. Tests of the pause set it.
    env: { CHATBRIDGE_PAUSE_MS: '0', ...ramTmpdir() },
    // Three files at a time (the projects below), also on a 2-core machine: a browser file
    // spends much of its time waiting on its pages and simulated answers. On the quiet machine
    // the suite took 7 min 28 s so against 8 min 51 s with two files at a time throughout; both
    // cores are then busy (almost all Chromium). Inside a file, blocks that share nothing run
    // side by side (test/support/beside.ts): at most two at once, each with its own contexts.
    // Three at once (the drift sample: 90 s alone in a file, 45 s three at a time) kept up to
    // nine browsers busy on two cores once the browser work per job had shrunk: two at once
    // took 651 CPU-seconds and 366 s against 667-680 and 376-380 s (2026-11-27).
    maxConcurrency: 2,
    // A test's own waits are bounded and say what they waited for; these bounds only catch
    // what hangs. On a slow loaded machine (CI's, 2026-11-29: npm test 14 min) a test of three
    // browser pages at once that takes 7 s alone ran out of 30 s.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'timed-processes',
          include: TIMED_PROCESSES,
          exclude: [...configDefaults.exclude, ...PROCESSES],
          isolate: false,
          globalSetup: ['test/support/postgres-global-setup.ts'],
          sequence: { groupOrder: 0 },
          maxWorkers: 3,
        },
      },
      // Beside the timed processes, which leave a core part idle.
      { extends: true, test: { name: 'own-process', include: OWN_PROCESS, sequence: { groupOrder: 0 }, maxWorkers: 3 } },
      {
        extends: true,
        test: { name: 'dashboard', include: DASHBOARD, setupFiles: ['test/renderer/setup.ts'], isolate: false, sequence: { groupOrder: 0 }, maxWorkers: 3 },
      },
      // The other files import the app's modules, mock no module, and stop what they start
      // (servers, browsers, processes: trackProcesses, afterAll): a file in a fresh process each
      // paid ~0.6 s of imports for ~0.3 s of tests (test/unit and test/electron: 23 s of CPU
      // isolated, 13 s shared; twelve small integration and e2e files: 22-23 s against 13-15 s).
      // One PostgreSQL cluster for the run; each file makes its own databases in it.
      {
        extends: true,
        test: {
          name: 'shared-process',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/drift/**', ...PROCESSES, ...BREADTH, TYPE_CHECK, ...OWN_PROCESS, ...DASHBOARD, ...TIMED_PROCESSES],
          isolate: false,
          globalSetup: ['test/support/postgres-global-setup.ts'],
          sequence: { groupOrder: 1 },
          maxWorkers: 3,
        },
      },
    ],
  },
});
