/**
 * The command line as a careful user meets it: serve stays on loopback unless told
 * otherwise, commands send the admin token only to a server that proves it is the one
 * of their data dir, and the admin token can be rotated.
 *
 * Needs dist/ built.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { createServer as createNetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, listening, trackProcesses, type Exit } from '../support/processes.js';
import { runningServer } from '../../main/cli/server-client.js';
import { serverProof } from '../../main/keys/admin-token.js';

const procs = trackProcesses('chatbridge-cli-security-');
let home = '';
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'chatbridge-cli-security-home-'));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const env = (): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = { ...process.env, XDG_DATA_HOME: home };
  delete e.CHATBRIDGE_DATA_DIR;
  return e;
};

async function cli(args: string[]): Promise<Exit & { stdout: string; stderr: string }> {
  const p = procs.launch([CLI, ...args], env());
  const exit = await p.closed;
  return { ...exit, ...p.out };
}

const serve = (args: string[]) => listening(procs.launch([CLI, 'serve', '--port', '0', ...args], env()));

describe('serve --host', () => {
  it('a non-loopback address is refused without --allow-remote, in one line', async () => {
    const dataDir = procs.tempDir();
    const r = await cli(['serve', '--port', '0', '--host', '0.0.0.0', '--data-dir', dataDir]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--allow-remote/);
  });

  it('with --allow-remote it listens and warns that the API is plain HTTP on the network; status still finds it over loopback', async () => {
    const dataDir = procs.tempDir();
    const server = await serve(['--host', '0.0.0.0', '--allow-remote', '--data-dir', dataDir]);
    await expect.poll(() => server.out.stderr).toMatch(/plain HTTP/);
    expect(server.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    const status = await cli(['status', '--json', '--data-dir', dataDir]);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).queue.depth).toBe(0);
  });
});

describe('commands that call the running server', () => {
  let impostor: Server;
  let seen: { url: string; authorization: string | undefined }[] = [];
  let impostorUrl = '';
  beforeAll(async () => {
    // Answers everything, including the proof, with what it can make up.
    impostor = createServer((req, res) => {
      seen.push({ url: req.url!, authorization: req.headers.authorization });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ proof: 'made-up-proof-of-the-right-length-xxxxxxxxxx' }));
    });
    await new Promise<void>((res) => impostor.listen(0, '127.0.0.1', res));
    impostorUrl = `http://127.0.0.1:${(impostor.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((res) => impostor.close(() => res())));

  const pretend = (dataDir: string, url: string, pid = process.pid) => {
    writeFileSync(join(dataDir, 'admin-token'), 'cba_the-real-token', { mode: 0o600 });
    // A live pid (this test's unless told), as when a pid was reused or the server died and another process took its port.
    writeFileSync(join(dataDir, 'server.json'), JSON.stringify({ pid, url }));
  };

  it('status, admin-token and ask do not send the token to a listener that cannot prove it holds the data dir', async () => {
    const dataDir = procs.tempDir();
    pretend(dataDir, impostorUrl);
    seen = [];
    for (const args of [['status'], ['admin-token', '--rotate'], ['ask', 'hi']]) {
      const r = await cli([...args, '--data-dir', dataDir]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/not the ChatBridge of/);
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => s.authorization === undefined && s.url.startsWith('/admin/v1/proof?nonce='))).toBe(true);
    expect(readFileSync(join(dataDir, 'admin-token'), 'utf8')).toBe('cba_the-real-token');
  });

  it('a server.json whose pid is alive in another process (reused, or pid 1 in a container) is stale unless its server proves itself: serve says so and starts', async () => {
    // What answers at its address cannot prove it holds the data dir (another program took the port) ...
    const taken = procs.tempDir();
    pretend(taken, impostorUrl);
    // ... or nothing answers there at all ...
    const closed = procs.tempDir();
    const gone = createServer();
    await new Promise<void>((res) => gone.listen(0, '127.0.0.1', res));
    const goneUrl = `http://127.0.0.1:${(gone.address() as { port: number }).port}`;
    await new Promise<void>((res) => gone.close(() => res()));
    pretend(closed, goneUrl);
    // ... or what answers hangs up without a word ...
    const silent = procs.tempDir();
    const hangUp = createNetServer((socket) => socket.destroy());
    await new Promise<void>((res) => hangUp.listen(0, '127.0.0.1', res));
    pretend(silent, `http://127.0.0.1:${(hangUp.address() as { port: number }).port}`);
    // ... or pid 1, alive in every container, at a port fetch will not even try (9, discard).
    const init = procs.tempDir();
    pretend(init, 'http://127.0.0.1:9', 1);
    // Side by side: each start takes a second or two.
    await Promise.all(
      [taken, closed, silent, init].map(async (dataDir) => {
        const server = await serve(['--data-dir', dataDir]);
        await expect.poll(() => server.out.stderr).toMatch(/^chatbridge: a stale server\.json \(pid \d+, http:\/\/127\.0\.0\.1:\d+\) was removed: /m);
        expect(JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8'))).toEqual({ pid: server.child.pid, url: server.url });
        // A second live instance on the data dir is still refused.
        const second = await cli(['serve', '--port', '0', '--data-dir', dataDir]);
        expect(second.code).toBe(2);
        expect(second.stderr).toMatch(/already running/);
        server.child.kill('SIGTERM');
        expect(await server.closed).toEqual({ code: 0, signal: null });
      }),
    );
    hangUp.close();
  });

  it('nor to an address that is not loopback', async () => {
    const dataDir = procs.tempDir();
    pretend(dataDir, 'http://192.0.2.1:8787');
    const r = await cli(['status', '--data-dir', dataDir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not this machine's loopback/);
  });
});

describe('calls to a proven server', () => {
  it('go only over connections proven on themselves: once the server that proved itself is gone, the listener on its port gets no token', async () => {
    const dataDir = procs.tempDir();
    const token = `cba_${'t'.repeat(32)}`;
    // Its first two connections answer the challenge as the data dir's server would; any later
    // one is another program's that took the port, and makes its proof up.
    const honest = 2;
    const order = new WeakMap<Socket, number>();
    const proven = new WeakSet<Socket>();
    const tokenOnProven: boolean[] = [];
    let url = '';
    const listener = createServer((req, res) => {
      const socket = req.socket;
      if (req.url!.startsWith('/admin/v1/proof?')) {
        const nonce = new URL(req.url!, url).searchParams.get('nonce')!;
        if (order.get(socket)! <= honest) proven.add(socket);
        return void res.end(JSON.stringify({ proof: proven.has(socket) ? serverProof(token, nonce, url) : serverProof('cba_made-up', nonce, url) }));
      }
      if (req.headers.authorization) tokenOnProven.push(proven.has(socket));
      res.end(JSON.stringify({ agents: [] }));
    });
    let connections = 0;
    listener.on('connection', (socket: Socket) => order.set(socket, ++connections));
    await new Promise<void>((res) => listener.listen(0, '127.0.0.1', res));
    url = `http://127.0.0.1:${(listener.address() as { port: number }).port}`;
    writeFileSync(join(dataDir, 'admin-token'), token, { mode: 0o600 });
    writeFileSync(join(dataDir, 'server.json'), JSON.stringify({ pid: process.pid, url }));

    const server = (await runningServer(dataDir))!;
    expect((await server.call('GET', '/admin/v1/state')).status).toBe(200);
    // The next call goes on the same connection, proven already.
    expect((await server.call('GET', '/admin/v1/state')).status).toBe(200);
    expect(tokenOnProven).toEqual([true, true]);
    expect(connections).toBe(2);
    // The server stops: its connections close, and another program listens at its address.
    const [kept] = Object.values(server.connections.freeSockets).flat();
    listener.closeAllConnections();
    await once(kept!, 'close');
    await expect(server.call('GET', '/admin/v1/state')).rejects.toThrow(/cannot prove it is this data dir's ChatBridge: nothing was sent to it/);
    expect(connections).toBe(3);
    expect(tokenOnProven).toHaveLength(2);
    listener.close();
  });
});

describe('chatbridge admin-token --rotate', () => {
  it('on a running server: the old link gets 401, the new one printed works', async () => {
    const dataDir = procs.tempDir();
    const server = await serve(['--data-dir', dataDir]);
    const oldToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const r = await cli(['admin-token', '--rotate', '--data-dir', dataDir]);
    expect(r.code, r.stderr).toBe(0);
    const link = /^dashboard: (\S+)$/m.exec(r.stdout)![1]!;
    expect(link.startsWith(`${server.url}/#token=cba_`)).toBe(true);
    const newToken = link.split('#token=')[1]!;
    expect(newToken).not.toBe(oldToken);
    const state = (token: string) => fetch(`${server.url}/admin/v1/state`, { headers: { authorization: `Bearer ${token}` } });
    expect((await state(oldToken)).status).toBe(401);
    expect((await state(newToken)).status).toBe(200);
  });

  it('without a server: the file gets a new token', async () => {
    const dataDir = procs.tempDir();
    writeFileSync(join(dataDir, 'admin-token'), 'cba_old', { mode: 0o600 });
    const r = await cli(['admin-token', '--rotate', '--data-dir', dataDir]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dataDir, 'admin-token'), 'utf8')).toMatch(/^cba_[A-Za-z0-9_-]{32}$/);
  });
});
