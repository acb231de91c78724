/**
 * `chatbridge ask` as a process against the scripted server (the service with scripted
 * agents, in its own process): stdout, stderr and exit codes, the prompt from stdin,
 * --continue, --json, --no-wait, Ctrl-C cancelling the job; and, against a scripted HTTP
 * server named by CHATBRIDGE_URL, the outcomes a scripted agent cannot reach quickly.
 *
 * Needs dist/ built (`tsc` runs before `vitest run` in `npm test`).
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, listening, runCommand, SCRIPTED_SERVER, trackProcesses, type Exit, type Running } from '../support/processes.js';
import { scriptedHttp } from '../support/scripted-http.js';
import { until } from '../support/until.js';
import { CLI as CLI_NAME } from '../../main/core/cli-name.js';

const procs = trackProcesses('chatbridge-ask-');
const closers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c.close();
});

/** The environment of a user with neither a key nor an address set. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['CHATBRIDGE_API_KEY', 'CHATBRIDGE_URL', 'CHATBRIDGE_DATA_DIR']) if (!(name in extra)) delete e[name];
  return e;
}

interface Result extends Exit {
  stdout: string;
  stderr: string;
}

/** `chatbridge ask …` to its end, with `stdin` piped in when given. */
function ask(args: string[], options: { env?: Record<string, string>; stdin?: string } = {}) {
  const child = spawn(process.execPath, [CLI, 'ask', ...args], { env: env(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out.stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
  child.stdin.end(options.stdin ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const done = new Promise<Result>((resolve) =>
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, ...out });
    }),
  );
  return { child, out, done };
}

async function service(agents = 'claude=1'): Promise<{ dir: string; server: Running; key: string }> {
  const dir = procs.tempDir();
  const server = await listening(procs.launch([SCRIPTED_SERVER, '--data-dir', dir, '--port', '0', '--agents', agents], env()));
  const created = procs.launch([CLI, 'keys', 'create', '--name', 'ask', '--scopes', 'completions:read,completions:write', '--data-dir', dir], env());
  await created.closed;
  return { dir, server, key: created.out.stdout.trimEnd().split('\n').pop()! };
}

async function api(server: Running, key: string, method: string, path: string): Promise<any> {
  const res = await fetch(server.url + path, { method, headers: { authorization: `Bearer ${key}` } });
  return res.json();
}

const CONVERSATION = /conversation_ref (cv_\w+)/;

describe('chatbridge ask', () => {
  it('prints the answer on stdout, where the job stands and its conversation_ref on stderr; --continue goes on in that conversation', async () => {
    const { dir } = await service();
    const first = await ask(['[[ms=300]] What is a queue?', '--data-dir', dir]).done;
    expect(first, first.stderr).toMatchObject({ code: 0, signal: null });
    expect(first.stdout).toMatch(/^echo\((agt_\w+)#1\): \[\[ms=300\]\] What is a queue\?\n$/);
    const lines = first.stderr.trimEnd().split('\n');
    // Not a terminal: one plain line per change, no spinner, no escape codes.
    expect(first.stderr).not.toMatch(/\r|\x1b/);
    expect(lines[0]).toMatch(/^chatbridge: job_\w+ (queued at position 1: an agent is free: it starts in queue order|running on claude-1 \(claude\)) \(\d+\.\d s\)$/);
    expect(lines.at(-2)).toMatch(/^chatbridge: answered by claude-1 \(claude\) in \d+\.\d s$/);
    const ref = CONVERSATION.exec(first.stderr)?.[1];
    // The hint carries what found the server.
    expect(lines.at(-1)).toBe(`chatbridge: conversation_ref ${ref} (continue it: ${CLI_NAME} ask --data-dir ${dir} --continue ${ref} "…")`);

    const second = await ask(['And a stack?', '--continue', ref!, '--data-dir', dir]).done;
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^echo\(agt_\w+#2\): And a stack\?\n$/);
    expect(CONVERSATION.exec(second.stderr)?.[1]).toBe(ref);
  });

  it('prints the answer as it renders, in at most three requests for the whole answer', async () => {
    const { server, key } = await service();
    // A proxy in front of the service counts what ask asks of it.
    const seen: string[] = [];
    const proxy = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const upstream = new URL(server.url);
      const forward = httpRequest({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    closers.push({ close: () => new Promise<void>((resolve) => { proxy.closeAllConnections(); proxy.close(() => resolve()); }) });
    const port = (proxy.address() as { port: number }).port;
    const run = ask(['Render it [[stream=4/300]]'], { env: { CHATBRIDGE_URL: `http://127.0.0.1:${port}`, CHATBRIDGE_API_KEY: key } });
    // The first piece is on stdout while the answer is still being written.
    await until(() => run.out.stdout.length > 0, 10_000, 'the first piece');
    const early = run.out.stdout;
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^echo\(agt_\w+#1\): Render it \[\[stream=4\/300\]\]\n$/);
    expect(early.length).toBeLessThan(r.stdout.length - 10);
    const asked = seen.filter((line) => line.includes('/v1/'));
    expect(asked).toHaveLength(3);
    expect(asked[0]).toBe('POST /v1/completions');
    expect(asked[2]).toMatch(/^GET \/v1\/completions\/job_\w+\/events$/);
  });

  it("sends its jobs with the command line's own key: owner-only in the data folder, the same the next time, named so in usage; a revoked one is replaced", async () => {
    const { dir, server } = await service();
    const file = join(dir, 'command-line-key');
    for (const prompt of ['one', 'two']) expect((await ask([prompt, '--data-dir', dir]).done).code).toBe(0);
    const usage = async () => JSON.parse((await runCommand(['usage', '--by', 'key', '--json', '--data-dir', dir], dir)).stdout).groups;
    const [row] = await usage();
    expect(row).toMatchObject({ id: expect.stringMatching(/^key_/), name: 'command line', figures: { jobs: 2, succeeded: 2 } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const secret = readFileSync(file, 'utf8').trim();
    expect(await api(server, secret, 'GET', '/v1/status')).toHaveProperty('queue');

    // Revoked (in the dashboard, say): the next ask makes another and keeps that one.
    const admin = readFileSync(join(dir, 'admin-token'), 'utf8').trim();
    await api(server, admin, 'DELETE', `/admin/v1/keys/${row.id}`);
    expect((await ask(['three', '--data-dir', dir]).done).code).toBe(0);
    const renewed = readFileSync(file, 'utf8').trim();
    expect(renewed).not.toBe(secret);
    expect((await api(server, secret, 'GET', '/v1/status')).error.code).toBe('UNAUTHORIZED');
    expect((await usage()).map((g: { name: string; figures: { jobs: number } }) => [g.name, g.figures.jobs])).toEqual([
      ['command line', 2],
      ['command line', 1],
    ]);
  });

  it('--model PROVIDER/VARIANT runs the job under that variant and says which model answered', async () => {
    const { dir } = await service();
    const r = await ask(['Think it through', '--model', 'claude/opus', '--json', '--data-dir', dir]).done;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'succeeded', provider: 'claude', variant: 'opus', model_used: 'model-opus' });
    expect(r.stderr).toMatch(/chatbridge: answered by claude-1 \(claude\) \(model model-opus\) in \d+\.\d s\n/);
  });

  it('reads the prompt from stdin with -, and with --json prints the job object alone on stdout', async () => {
    const { dir, key } = await service();
    const r = await ask(['-', '--json', '--provider', 'claude', '--data-dir', dir], { env: { CHATBRIDGE_API_KEY: key }, stdin: 'line one\nline two\n' }).done;
    expect(r.code, r.stderr).toBe(0);
    const job = JSON.parse(r.stdout);
    expect(job).toMatchObject({ status: 'succeeded', provider: 'claude', agent_name: 'claude-1', attempts: 1 });
    expect(job.response).toMatch(/^echo\(agt_\w+#1\): line one\nline two\n$/);
    expect(r.stderr).toContain(`conversation_ref ${job.conversation_ref}`);
  });

  it('--no-wait prints the id of the queued job and leaves it running', async () => {
    const { dir, server, key } = await service();
    const r = await ask(['[[ms=200]] later', '--no-wait', '--data-dir', dir]).done;
    expect(r.code, r.stderr).toBe(0);
    const id = r.stdout.trim();
    expect(id).toMatch(/^job_\w+$/);
    expect(r.stderr).toContain(`GET /v1/completions/${id}`);
    await until(async () => (await api(server, key, 'GET', `/v1/completions/${id}`)).status === 'succeeded', 15_000, 'the job to run');
  });

  it('Ctrl-C cancels the job, says so, and exits 130', async () => {
    const { dir, server, key } = await service();
    const running = ask(['[[hang]] never answers', '--data-dir', dir]);
    await until(() => /running on claude-1/.test(running.out.stderr), 10_000, 'the job to run');
    const id = /(job_\w+)/.exec(running.out.stderr)![1]!;
    running.child.kill('SIGINT');
    const r = await running.done;
    expect(r, r.stderr).toMatchObject({ code: 130, signal: null, stdout: '' });
    expect(r.stderr).toContain(`chatbridge: Ctrl-C: cancelled ${id}.\n`);
    expect((await api(server, key, 'GET', `/v1/completions/${id}`)).status).toBe('cancelled');
  });

  it('exit codes: 1 for a failed job, 3 for a job cancelled elsewhere', async () => {
    const { dir, server, key } = await service();
    const refused = await ask(['[[fail=rejected]] no', '--data-dir', dir]).done;
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/failed: PROMPT_REJECTED: /);

    const waiting = ask(['[[hang]] cancelled from elsewhere', '--data-dir', dir]);
    await until(() => /running on/.test(waiting.out.stderr), 10_000, 'the job to run');
    const id = /(job_\w+)/.exec(waiting.out.stderr)![1]!;
    await api(server, key, 'DELETE', `/v1/completions/${id}`);
    const cancelled = await waiting.done;
    expect(cancelled.code).toBe(3);
    expect(cancelled.stderr).toContain(`${id} was cancelled.`);
  });

  it('a server stopped while ask waits: a listener that takes its port gets neither the admin token nor a key', async () => {
    const { dir, server } = await service();
    const waiting = ask(['[[hang]] the server stops under it', '--data-dir', dir]);
    await until(() => /running on claude-1/.test(waiting.out.stderr), 10_000, 'the job to run');
    server.child.kill('SIGKILL');
    await server.closed;
    // Any program may take the freed port: this one answers everything, the challenge with a
    // made-up proof. Heard: ask's next try (after its back-off), up to the end of that connection
    // or a request that carries a key, whichever comes first.
    const heard: { url: string; authorization: string | undefined }[] = [];
    await new Promise<void>((resolve) => {
      const impostor = createServer((req, res) => {
        heard.push({ url: req.url!, authorization: req.headers.authorization });
        if (req.headers.authorization) resolve();
        req.socket.once('close', resolve);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ proof: 'made-up-proof-of-the-right-length-xxxxxxxxxxx' }));
      });
      impostor.listen(Number(new URL(server.url).port), '127.0.0.1');
      closers.push({ close: () => new Promise<void>((done) => impostor.close(() => done())) });
    });
    waiting.child.kill('SIGKILL');
    expect(heard).toEqual([{ url: expect.stringMatching(/^\/admin\/v1\/proof\?nonce=/), authorization: undefined }]);
  });

  it('exit code 4 when the job timed out (its deadline passed)', async () => {
    const fake = await scriptedHttp((r) => {
      if (r.method === 'POST') return { status: 202, body: { id: 'job_1', status: 'queued', created_at: '2026-11-21T10:00:00Z' } };
      const expired = r.url.includes('wait=true');
      return {
        status: 200,
        body: {
          id: 'job_1', status: expired ? 'expired' : 'queued', response: null, provider: null, agent_id: null, agent_name: null,
          conversation_ref: null, attempts: 0, queue_ms: null, run_ms: 0, created_at: '2026-11-21T10:00:00Z',
          content_pruned_at: null, error: expired ? { code: 'JOB_TIMEOUT', message: 'deadline passed' } : null, metadata: {},
          ...(expired ? {} : { queue_position: 1 }),
        },
      };
    });
    closers.push(fake);
    const r = await ask(['too late'], { env: { CHATBRIDGE_URL: fake.url, CHATBRIDGE_API_KEY: 'cb_fake' } }).done;
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('chatbridge: job_1 queued at position 1');
    expect(r.stderr).toContain('job_1 timed out: its deadline passed before it could answer.');
    expect(fake.requests.every((q) => q.headers.authorization === 'Bearer cb_fake')).toBe(true);
  });

  it('usage errors exit 2 with one line: no prompt, an unknown option, no key, a bad provider, a revoked key, no service', async () => {
    const { dir, server } = await service();
    const noKeyElsewhere = { CHATBRIDGE_URL: server.url };
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--data-dir', dir], {}, /^chatbridge: Give the prompt: (?:npx )?chatbridge ask "PROMPT"/],
      [['hi', '--frobnicate', '--data-dir', dir], {}, /^chatbridge: Unknown option --frobnicate\. \(A prompt that starts with "-" goes after --, as in -- "-x"\.\) Run (?:npx )?chatbridge help\.\n$/],
      [['hi', '--provider', '--json', '--data-dir', dir], {}, /^chatbridge: --provider needs a value, not another option \(a value that starts with "-" goes as --provider=-VALUE\)\.\n$/],
      [['   ', '--data-dir', dir], {}, /^chatbridge: The prompt has no visible text: it is empty, or only spaces, line breaks or invisible characters\.\n$/],
      [['\u200b\n\t\u3164', '--data-dir', dir], {}, /^chatbridge: The prompt has no visible text/],
      // The dashboard's token goes only to the data dir's own server, never to CHATBRIDGE_URL.
      [['hi', '--data-dir', dir], noKeyElsewhere, /^chatbridge: No API key: make a key with "(?:npx )?chatbridge keys create --name cli/],
      [['hi', '--provider', 'bard', '--data-dir', dir], {}, /^chatbridge: INVALID_REQUEST: provider must be one of: "chatgpt", .*"perplexity" \(or null for any\)\.\n$/],
      [['hi', '--model', 'claude/', '--data-dir', dir], {}, /^chatbridge: --model takes PROVIDER\/VARIANT, such as chatgpt\/thinking \(not "claude\/"\)\.\n$/],
      [['hi', '--model', 'claude/opus', '--provider', 'chatgpt', '--data-dir', dir], {}, /^chatbridge: --model claude\/opus is a claude model, but --provider says chatgpt\.\n$/],
      [['hi', '--model', 'claude/turbo', '--data-dir', dir], {}, /^chatbridge: INVALID_REQUEST: claude has no variant "turbo"; its variants: opus, sonnet\.\n$/],
      [['hi', '--data-dir', dir], { CHATBRIDGE_API_KEY: `cb_${'x'.repeat(40)}` }, /^chatbridge: This API key is not known\. To use another: make a key/],
      [['hi', '--data-dir', procs.tempDir()], {}, /^chatbridge: ChatBridge is not running for .*Start it \((?:npx )?chatbridge serve\) or set CHATBRIDGE_URL\.\n$/],
    ];
    for (const [args, extra, message] of cases) {
      const r = await ask(args, { env: extra }).done;
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stdout).toBe('');
    }
  });
});
