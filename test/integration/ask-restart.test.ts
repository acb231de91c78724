/**
 * `chatbridge ask` following a job whose server restarts under it (issue 33): the stream the
 * stop closed is opened again with Last-Event-ID once the server is back on its port, and the
 * printed answer is the job's response, nothing lost or repeated.
 *
 * Needs dist/ built (`npm test` builds before `vitest run`).
 */
import { createServer, request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, listening, SCRIPTED_SERVER, trackProcesses } from '../support/processes.js';
import { until } from '../support/until.js';

const procs = trackProcesses('chatbridge-ask-restart-');
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/**
 * A proxy in front of the service that notes each request (with its Last-Event-ID) and, when
 * the service is down or goes down, cuts the client's connection as the service would.
 */
async function notingProxy(upstreamPort: () => number): Promise<{ url: string; seen: string[]; eventsPassed: () => boolean }> {
  const seen: string[] = [];
  let eventsPassed = false;
  const proxy = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}${req.headers['last-event-id'] ? ` from ${req.headers['last-event-id']}` : ''}`);
    const forward = httpRequest({ host: '127.0.0.1', port: upstreamPort(), path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      if (req.url?.endsWith('/events')) answer.on('data', (chunk: Buffer) => (eventsPassed ||= chunk.includes('\nid: ') || chunk.subarray(0, 4).equals(Buffer.from('id: '))));
      answer.pipe(res);
      answer.on('aborted', () => res.destroy());
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => {
    proxy.closeAllConnections();
    proxy.close(() => resolve());
  }));
  return { url: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`, seen, eventsPassed: () => eventsPassed };
}

describe('chatbridge ask across a restart of its server', () => {
  it('resumes the stream the restart closed: the printed answer is the response exactly', async () => {
    const dir = procs.tempDir();
    const serve = (port: number) =>
      listening(procs.launch([SCRIPTED_SERVER, '--data-dir', dir, '--port', String(port), '--agents', 'claude=1', '--stop-grace', '0']));
    const first = await serve(0);
    const port = Number(new URL(first.url).port);
    const created = procs.launch([CLI, 'keys', 'create', '--name', 'ask', '--scopes', 'completions:read,completions:write', '--data-dir', dir]);
    await created.closed;
    const key = created.out.stdout.trimEnd().split('\n').pop()!;
    const proxy = await notingProxy(() => port);

    // The prompt is still being typed when the server stops: the job goes back to the queue,
    // and the restarted server's agent answers it in pieces.
    const env: NodeJS.ProcessEnv = { ...process.env, CHATBRIDGE_URL: proxy.url, CHATBRIDGE_API_KEY: key };
    delete env.CHATBRIDGE_DATA_DIR;
    const asking = procs.launch([CLI, 'ask', '[[typing=1500]] Restart under me [[stream=4/300]]'], env);
    // Stopped once an event with its id has reached the client (the job may already be running
    // in the POST's answer, before the stream is opened: then there would be nothing to resume from).
    await until(() => /running on claude-1/.test(asking.out.stderr) && proxy.eventsPassed(), 15_000, 'the job to run, followed on its stream');
    first.child.kill('SIGTERM');
    expect((await first.closed).code).toBe(0);
    const second = await serve(port);

    const exit = await asking.closed;
    expect(exit, asking.out.stderr).toEqual({ code: 0, signal: null });
    const id = /(job_\w+)/.exec(asking.out.stderr)![1]!;
    const job = await (await fetch(`${second.url}/v1/completions/${id}`, { headers: { authorization: `Bearer ${key}` } })).json();
    expect(job.status).toBe('succeeded');
    expect(asking.out.stdout).toBe(`${job.response}\n`);
    // Followed on the stream to the end: the last request resumed it, and nothing was polled.
    expect(proxy.seen.at(-1)).toMatch(new RegExp(`^GET /v1/completions/${id}/events from \\d+-\\w+-\\d+$`));
    expect(proxy.seen.filter((line) => line.includes('wait'))).toEqual([]);
  }, 60_000);
});
