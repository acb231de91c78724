import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { dashboardHandler, type Inject } from '../../main/electron/dashboard-protocol.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function renderer(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cb-renderer-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" src="/assets/app.js"></script>');
  writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1)');
  return dir;
}

/** A stand-in for the service: echoes what reached it. */
async function service(): Promise<Inject> {
  const app = Fastify();
  app.all('/admin/v1/*', async (req, reply) => {
    reply.header('x-seen-host', req.headers.host);
    return { method: req.method, url: req.url, auth: req.headers.authorization ?? null, body: req.body ?? null };
  });
  app.delete('/v1/completions/:id', async (_req, reply) => reply.code(204).send());
  await app.ready();
  return (r) => app.inject(r) as never;
}

describe('the app:// protocol of the dashboard window', () => {
  it('serves the built dashboard with its CSP, and index.html for client routes', async () => {
    const handle = dashboardHandler(renderer(), await service());
    const index = await handle(new Request('app://dashboard/'));
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toContain('text/html');
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await (await handle(new Request('app://dashboard/agents/agt_1'))).text()).toContain('/assets/app.js');
    const script = await handle(new Request('app://dashboard/assets/app.js'));
    expect(script.headers.get('content-type')).toContain('text/javascript');
    expect(await script.text()).toBe('console.log(1)');
  });

  it('never serves a file outside the renderer folder, nor other hosts', async () => {
    const handle = dashboardHandler(renderer(), await service());
    expect((await handle(new Request('app://dashboard/..%2F..%2Fetc%2Fpasswd.txt'))).status).toBe(404);
    expect((await handle(new Request('app://dashboard/assets/missing.js'))).status).toBe(404);
    expect((await handle(new Request('app://other/index.html'))).status).toBe(404);
    expect((await handle(new Request('app://dashboard/assets/app.js', { method: 'POST', body: 'x' }))).status).toBe(405);
  });

  it("hands API calls to the service in-process, with the page's own token and body", async () => {
    const handle = dashboardHandler(renderer(), await service());
    const res = await handle(
      new Request('app://dashboard/admin/v1/agents/agt_1?x=1', {
        method: 'PATCH',
        headers: { authorization: 'Bearer cba_token', 'content-type': 'application/json', cookie: 'dropped=1' },
        body: JSON.stringify({ enabled: false }),
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-seen-host')).toBe('127.0.0.1');
    expect(await res.json()).toEqual({ method: 'PATCH', url: '/admin/v1/agents/agt_1?x=1', auth: 'Bearer cba_token', body: { enabled: false } });
    const deleted = await handle(new Request('app://dashboard/v1/completions/job_1', { method: 'DELETE' }));
    expect(deleted.status).toBe(204);
  });

  it('says the dashboard is not built yet instead of failing', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'cb-renderer-'));
    dirs.push(empty);
    const res = await dashboardHandler(empty, await service())(new Request('app://dashboard/'));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('not built');
  });
});
