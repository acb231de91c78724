/**
 * `chatbridge/client` as a project that installed chatbridge sees it: resolved through
 * package.json "exports" from node_modules, typed for TypeScript (tsc checks a consumer
 * against the declarations), and working from plain Node against the service.
 *
 * Needs dist/ built (`npm run build` emits the code and the declarations).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';
import { startTestService, type TestService } from '../support/harness.js';

const run = promisify(execFile);
let project = '';

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'chatbridge-consumer-'));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(PACKAGE_ROOT, join(project, 'node_modules', 'chatbridge'), 'dir');
  // A TypeScript project for Node has Node's types.
  symlinkSync(join(PACKAGE_ROOT, 'node_modules/@types'), join(project, 'node_modules', '@types'), 'dir');
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

const CONSUMER = `
import { ChatBridgeClient, ChatBridgeError, verifyWebhook, type Job } from 'chatbridge/client';

const client = new ChatBridgeClient({ baseUrl: process.env.CHATBRIDGE_URL!, apiKey: process.env.CHATBRIDGE_API_KEY! });
const job: Job = await client.submit({ prompt: 'from a consumer', provider: 'claude' });
const response: string | null = job.response;
console.log(response);
try {
  await client.get('job_nope');
} catch (error) {
  if (error instanceof ChatBridgeError) console.log(error.code, error.status);
}
// @ts-expect-error: a submission needs its prompt
void client.submit({ provider: 'claude' });
// @ts-expect-error: providers are the six of the contract
void client.submit({ prompt: 'x', provider: 'bard' });
void verifyWebhook;
`;

describe('chatbridge/client as an installed package', () => {
  it('type-checks a TypeScript consumer against the declarations in exports', async () => {
    writeFileSync(join(project, 'consumer.mts'), CONSUMER);
    const tsc = join(PACKAGE_ROOT, 'node_modules/typescript/bin/tsc');
    // Checking the consumer is the test; checking TypeBox's and Node's own declarations cost
    // 4 of its 5.4 CPU-seconds. A type of ours that failed to resolve would still show: it
    // would turn `any`, and the consumer's @ts-expect-error lines would then be errors.
    const args = ['--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', 'consumer.mts'];
    const result = await run(process.execPath, [tsc, ...args], { cwd: project }).catch((e: { stdout: string }) => e);
    expect(result.stdout).toBe('');
  }, 60_000);

  it('runs from plain Node against the service', async () => {
    const ts: TestService = await startTestService({ agents: { claude: 1 } });
    try {
      const script = CONSUMER.replace(/: Job|: string \| null|!/g, '').replace(/, type Job/, '').replace(/\/\/ @ts-expect-error.*\n.*\n/g, '');
      writeFileSync(join(project, 'consumer.mjs'), script);
      const { stdout } = await run(process.execPath, ['consumer.mjs'], {
        cwd: project,
        env: { ...process.env, CHATBRIDGE_URL: ts.url, CHATBRIDGE_API_KEY: ts.key },
      });
      expect(stdout).toBe(`echo(${ts.agents[0]!.id}#1): from a consumer\nNOT_FOUND 404\n`);
    } finally {
      await ts.stop();
    }
  });
});
