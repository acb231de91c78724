/**
 * A simulated site run again on its state file, as `serve --simulate` runs it after a stop:
 * the same address, the sessions it gave, an answer still being written, the limit it set
 * (for as long as `[[sim:limit=MS]]` said, to the minute its page shows) and its log; a
 * prompt that hit the limit does not hit it again once the limit lifted. On an injected
 * clock, over HTTP, with no browser.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { startSiteServer, type SimLog, type SimSite } from '../../agents/simulator/site-server.js';

const dirs: string[] = [];
const sites: SimSite[] = [];
afterEach(async () => {
  await Promise.all(sites.splice(0).map((s) => s.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * A request on a connection of its own: a pooled one to the site's first run, closed by it,
 * would fail the first request to the second (a POST is not retried).
 */
function call(url: string, session?: { name: string; value: string }, body?: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const headers = { ...(session ? { cookie: `${session.name}=${session.value}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) };
    const req = request(url, { method: body ? 'POST' : 'GET', agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d)).on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

describe('a simulated site kept across runs', () => {
  it('keeps its address, sessions, an answer being written, its limits and log; a limit played once is not played again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatbridge-sim-state-'));
    dirs.push(dir);
    const file = join(dir, 'chatgpt.json');
    let now = Date.UTC(2026, 10, 21, 10, 0, 30);
    const start = async () => {
      const site = await startSiteServer(SIM_SITES.chatgpt, {}, () => now, file);
      sites.push(site);
      return site;
    };
    let site = await start();
    const [limited, writing] = [site.session(), site.session()];
    const send = async (session: { name: string; value: string }, prompt: string) =>
      JSON.parse(await call(`${site.url}/__sim/send`, session, { conversationId: null, prompt, attachment: null, signedIn: true })) as {
        kind: string;
        limitResetAt: number | null;
        conversationId: string | null;
      };

    // 90 s from 10:00:30 is 10:02:00 on the minute the page shows.
    expect(await send(limited, 'p [[sim:limit=90000]]')).toMatchObject({ kind: 'limit', limitResetAt: Date.UTC(2026, 10, 21, 10, 2, 0) });
    const long = await send(writing, 'long [[sim:ms=60000]]');
    expect(long.kind).toBe('answer');
    const url = site.url;
    sites.splice(0, 1);
    await site.close();

    now += 20_000;
    site = await start();
    expect(site.url).toBe(url);
    // The session is still signed in, and still under the limit.
    expect(await send(limited, 'q')).toMatchObject({ kind: 'limit', limitResetAt: Date.UTC(2026, 10, 21, 10, 2, 0) });
    // The conversation opened again shows its answer still being written, 40 s from its end.
    const page = await call(`${site.url}/c/${long.conversationId}`, writing);
    const boot = JSON.parse(/window\.__SIM_BOOT=(.*?)<\/script>/.exec(page)![1]!) as { answering: { prompt: string; plan: { ms: number } } };
    expect(boot.answering).toMatchObject({ prompt: 'long [[sim:ms=60000]]', plan: { ms: 40_000 } });

    now = Date.UTC(2026, 10, 21, 10, 2, 0);
    expect(await send(limited, 'p [[sim:limit=90000]]')).toMatchObject({ kind: 'answer' });
    const log = JSON.parse(await call(`${site.url}/__sim/log`)) as SimLog;
    expect(log.sends.map((s) => [s.prompt, s.kind])).toEqual([
      ['p [[sim:limit=90000]]', 'limit'],
      ['long [[sim:ms=60000]]', 'answer'],
      ['q', 'limit'],
      ['p [[sim:limit=90000]]', 'answer'],
    ]);
  });
});
