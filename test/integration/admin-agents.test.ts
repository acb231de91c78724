/**
 * Adding, logging in and removing agents through /admin/v1, with the agents' browsers
 * replaced by a recording AgentControl (the real one, with Chromium, is in
 * test/e2e/pairing.test.ts): the checks, codes and orderings the server itself owns.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentControl, AgentScreen, LoginStep } from '../../main/core/agent-control.js';
import { AgentBusy, type SiteCheck } from '../../main/core/site-check.js';
import type { ViewFrame, ViewInput } from '../../main/contract/admin/index.js';
import { startTestService, type TestService } from '../support/harness.js';
import { until } from '../support/until.js';

let t: TestService;
let admin: string;
afterEach(async () => t?.stop());

async function start(agents: Parameters<typeof startTestService>[0] = {}) {
  t = await startTestService(agents);
  admin = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
}

const as = (method: string, path: string, body?: unknown) => t.api(method, path, { key: admin, body });
/** The log's latest line about agents: a cancelled job's webhook, refused, is logged whenever its attempt ends. */
const lastAgentLine = async () => ((await as('GET', '/admin/v1/logs')).body.entries as { source: string }[]).filter((e) => e.source === 'agent').at(-1);

/** Records what the dashboard asked of the browsers; a test sets the login steps. */
class RecordingControl implements AgentControl {
  readonly calls: string[] = [];
  readonly steps = new Map<string, LoginStep>();
  readonly inputs: ViewInput[] = [];
  private readonly watchers = new Map<(frame: ViewFrame) => void, () => void>();
  private readonly listeners: (() => void)[] = [];
  readonly screenOf: AgentScreen = {
    watch: (onFrame, onEnd) => {
      this.watchers.set(onFrame, onEnd);
      return () => this.watchers.delete(onFrame);
    },
    input: async (event) => void this.inputs.push(event),
  };

  async start(id: string) {
    this.calls.push(`start ${id}`);
  }
  failRemove = false;
  async remove(id: string) {
    this.calls.push(`remove ${id}`);
    if (this.failRemove) throw new Error('EBUSY: profile in use');
  }
  async logIn(id: string) {
    this.calls.push(`login ${id}`);
    this.steps.set(id, 'login');
  }
  endLogIn(id: string) {
    this.calls.push(`end ${id}`);
    this.steps.delete(id);
  }
  loginStep(id: string) {
    return this.steps.get(id) ?? null;
  }
  variants() {
    return [];
  }
  attachmentRules() {
    return null;
  }
  async checkSite(id: string, { send }: { send: boolean }): Promise<SiteCheck> {
    this.calls.push(`check ${id}${send ? ' send' : ''}`);
    if (this.steps.has(id)) throw new AgentBusy('A login is under way.');
    return {
      agent_id: id,
      provider: 'chatgpt',
      site: 'ChatGPT',
      at: Date.parse('2026-11-02T10:00:00Z'),
      pack: { version: 5, checked: '2026-10-09', override: null, override_error: null },
      page_url: 'https://chatgpt.com/',
      sent: send,
      problem: null,
      roles: [{ role: 'send', status: 'missing', cue: null }],
      variants: ['instant', 'thinking'],
      ok: false,
    };
  }
  /** What the next recheck finds: a page ready for a job, or not. */
  healthy = true;
  /** How the agent looks at its page (a test may hold it there). */
  look: (id: string) => Promise<boolean> = async () => this.healthy;
  async recheck(id: string) {
    this.calls.push(`recheck ${id}`);
    return this.look(id);
  }
  screen() {
    return this.screenOf;
  }
  onChange(listener: () => void) {
    this.listeners.push(listener);
  }
  frame(frame: ViewFrame) {
    for (const w of this.watchers.keys()) w(frame);
  }
  /** The page went away (its browser restarts). */
  pageGone() {
    for (const end of this.watchers.values()) end();
  }
}

function attach(): RecordingControl {
  const control = new RecordingControl();
  t.service.attachAgents(control);
  return control;
}

describe('agents from the dashboard', () => {
  it('says the agents are not running until the process running their browsers attaches them', async () => {
    await start();
    const r = await as('POST', '/admin/v1/agents', { provider: 'claude' });
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('NO_DEVICE_ONLINE');
    expect((await as('GET', '/admin/v1/state')).body.agents).toEqual([]);
  });

  it('adds an account: a named agent, its browser started, its login begun', async () => {
    await start();
    const control = attach();
    const first = await as('POST', '/admin/v1/agents', { provider: 'claude' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ name: 'Claude 1', provider: 'claude', pairing: 'login', enabled: true });
    expect(control.calls).toEqual([`start ${first.body.id}`, `login ${first.body.id}`]);
    expect((await as('POST', '/admin/v1/agents', { provider: 'claude' })).body.name).toBe('Claude 2');
    expect((await as('POST', '/admin/v1/agents', { provider: 'qwen', name: ' Work ' })).body.name).toBe('Work');

    const bad = await as('POST', '/admin/v1/agents', { provider: 'bard' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_REQUEST');
    expect((await t.api('POST', '/admin/v1/agents', { body: { provider: 'claude' } })).status).toBe(403);
    expect((await t.api('GET', '/v1/status')).body.providers.claude.agents_total).toBe(2);
    const log = (await as('GET', '/admin/v1/logs')).body.entries.map((e: { message: string }) => e.message);
    expect(log).toContain('Claude 1: added (Claude), opening its login page');
  });

  it("check has the agent look at its page again; a login's check is its 'I have logged in'; a busy agent is left alone", async () => {
    await start({ agents: { gemini: 1 } });
    const control = attach();
    const agent = t.agents[0]!;
    let looks = 0;
    let release: () => void = () => {};
    // What a browser agent does: look at its page, then say whether it is logged in.
    control.look = () =>
      new Promise<boolean>((resolve) => {
        looks++;
        release = () => {
          agent.setReadiness('needs_login');
          resolve(false);
        };
      });
    const checking = as('POST', `/admin/v1/agents/${agent.id}/check`);
    await until(() => looks === 1);
    // While it looks, no job is handed to its page.
    const waiting = await t.api('POST', '/v1/completions', { body: { prompt: 'p', wait: false } });
    expect(waiting.status).toBe(503);
    release();
    const checked = await checking;
    expect(checked.status).toBe(200);
    expect(checked.body).toMatchObject({ id: agent.id, state: 'needs_login', pairing: null });

    control.steps.set(agent.id, 'login');
    await as('POST', `/admin/v1/agents/${agent.id}/check`);
    expect(control.calls).toEqual([`recheck ${agent.id}`, `login ${agent.id}`]);
    expect(looks).toBe(1);

    control.steps.delete(agent.id);
    agent.setReadiness('idle');
    const held = t.api('POST', '/v1/completions', { body: { prompt: 'p [[hang]]' } });
    await until(() => t.driver.isRunningOn(agent.id));
    expect((await as('POST', `/admin/v1/agents/${agent.id}/check`)).body.state).toBe('busy');
    expect(looks).toBe(1);
    expect((await as('POST', '/admin/v1/agents/agt_nope/check')).status).toBe(404);
    await t.api('DELETE', `/v1/completions/${(await t.driver.recent(1))[0]!.id}`);
    expect((await held).status).toBe(499);
  });

  it('logs in again and closes a login; the state shows the step', async () => {
    await start({ agents: { chatgpt: 1 } });
    const control = attach();
    const id = t.agents[0]!.id;
    expect((await as('POST', `/admin/v1/agents/${id}/login`)).body.pairing).toBe('login');
    expect((await as('GET', '/admin/v1/state')).body.agents[0].pairing).toBe('login');
    expect((await as('DELETE', `/admin/v1/agents/${id}/login`)).body.pairing).toBeNull();
    expect(control.calls).toEqual([`login ${id}`, `end ${id}`]);
    expect((await as('POST', '/admin/v1/agents/agt_nope/login')).status).toBe(404);
  });

  it('plays input into the page only during a login, and only input of the documented shapes', async () => {
    await start({ agents: { chatgpt: 1 } });
    const control = attach();
    const id = t.agents[0]!.id;
    const click = { type: 'click', x: 10, y: 20 };
    const refused = await as('POST', `/admin/v1/agents/${id}/screen/input`, click);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/only while you log in/);

    await as('POST', `/admin/v1/agents/${id}/login`);
    for (const ok of [click, { type: 'text', text: 'me@example.test' }, { type: 'key', key: 'Shift+Tab' }, { type: 'scroll', x: 1, y: 2, dx: 0, dy: 300 }]) {
      expect((await as('POST', `/admin/v1/agents/${id}/screen/input`, ok)).status).toBe(204);
    }
    expect(control.inputs).toHaveLength(4);
    for (const bad of [
      { type: 'key', key: 'NotAKey' },
      { type: 'key', key: 'Control+' },
      { type: 'click', x: -1, y: 0 },
      { type: 'text', text: '' },
      { type: 'text', text: 'x'.repeat(10_001) },
      { type: 'drag', x: 1, y: 1 },
      { type: 'click', x: 1, y: 1, button: 'right' },
    ]) {
      const r = await as('POST', `/admin/v1/agents/${id}/screen/input`, bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error.code).toBe('INVALID_REQUEST');
    }
    expect(control.inputs).toHaveLength(4);
  });

  it("streams the agent's page as frame events, until the page is gone", async () => {
    await start({ agents: { chatgpt: 1 } });
    const control = attach();
    const id = t.agents[0]!.id;
    const res = await fetch(`${t.url}/admin/v1/agents/${id}/screen`, { headers: { authorization: `Bearer ${admin}` } });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const read = (async () => {
      while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    })();
    // The route subscribes once the stream is open: send until the event arrives.
    const pump = setInterval(() => control.frame({ jpeg: 'AQID', width: 1280, height: 900 }), 20);
    await read;
    clearInterval(pump);
    expect(text).toMatch(/^event: frame\ndata: \{"jpeg":"AQID","width":1280,"height":900\}\n\n/);
    control.pageGone();
    for (;;) if ((await reader.read()).done) break;
    expect((await as('GET', '/admin/v1/agents/agt_nope/screen')).status).toBe(404);
  });

  it('removes an idle agent and its login; refuses while it runs a job or queued jobs need it', async () => {
    await start({ agents: { chatgpt: 1 } });
    const control = attach();
    const id = t.agents[0]!.id;
    const first = await t.api('POST', '/v1/completions', { body: { prompt: 'Remember 7' } });
    const ref = first.body.conversation_ref as string;

    // Running until cancelled: the calls made while it runs may take long on a busy machine.
    const running = await t.api('POST', '/v1/completions', { body: { prompt: 'Slow [[hang]]', wait: false, callback_url: 'https://127.0.0.1:9/hook' } });
    await until(async () => (await as('GET', '/admin/v1/state')).body.agents[0].state === 'busy');
    const busy = await as('DELETE', `/admin/v1/agents/${id}`);
    expect(busy.status).toBe(409);
    expect(busy.body.error.message).toMatch(/running a job/);
    expect((await t.api('DELETE', `/v1/completions/${running.body.id}`)).body.status).toBe('cancelled');
    await until(async () => (await as('GET', '/admin/v1/state')).body.agents[0].state !== 'busy');

    // A queued continuation can only run on this agent.
    await as('PATCH', `/admin/v1/agents/${id}`, { enabled: false });
    const pinned = await t.api('POST', '/v1/completions', { body: { prompt: 'Which number?', mode: 'continue', conversation_ref: ref, wait: false, callback_url: 'https://127.0.0.1:9/hook' } });
    expect(pinned.status).toBe(202);
    const blocked = await as('DELETE', `/admin/v1/agents/${id}`);
    expect(blocked.status).toBe(409);
    expect(blocked.body.error.message).toMatch(/1 queued job can only run on this agent/);
    await t.api('DELETE', `/v1/completions/${pinned.body.id}`);

    const removed = await as('DELETE', `/admin/v1/agents/${id}`);
    expect(removed.status).toBe(204);
    expect(await lastAgentLine()).toMatchObject({ message: 'chatgpt-1: removed, with its login' });
    expect(control.calls).toContain(`remove ${id}`);
    expect((await as('GET', '/admin/v1/state')).body.agents).toEqual([]);
    expect((await as('DELETE', `/admin/v1/agents/${id}`)).status).toBe(404);
    // Its jobs stay; its conversations cannot go on.
    expect((await t.api('GET', `/v1/completions/${first.body.id}`)).body.agent_id).toBe(id);
    const orphan = await t.api('POST', '/v1/completions', { body: { prompt: 'And now?', mode: 'continue', conversation_ref: ref } });
    expect(orphan.status).toBe(400);
    expect(orphan.body.error.details.field).toBe('conversation_ref');
  });

  it('checks an agent\'s site and rechecks it on request; refuses while it runs a job or a login', async () => {
    await start({ agents: { chatgpt: 1 } });
    const control = attach();
    const id = t.agents[0]!.id;
    const check = await as('POST', `/admin/v1/agents/${id}/check-site`, { send: true });
    expect(check.status).toBe(200);
    expect(check.body).toMatchObject({ agent_id: id, at: '2026-11-02T10:00:00Z', sent: true, ok: false, roles: [{ role: 'send', status: 'missing', cue: null }] });
    expect((await as('POST', `/admin/v1/agents/${id}/check-site`, {})).body.sent).toBe(false);
    expect((await as('GET', '/admin/v1/logs')).body.entries.at(-1)).toMatchObject({ level: 'warn', message: 'chatgpt-1: site check: missing send' });
    expect((await as('POST', `/admin/v1/agents/${id}/check-site`, { send: 'yes' })).status).toBe(400);
    expect((await as('POST', `/admin/v1/agents/${id}/check-site`, { sned: true })).status).toBe(400);
    expect((await as('POST', '/admin/v1/agents/agt_nope/check-site', {})).status).toBe(404);
    expect((await t.api('POST', `/admin/v1/agents/${id}/check-site`, { body: {} })).status).toBe(403);

    const recheck = await as('POST', `/admin/v1/agents/${id}/check`);
    expect(recheck.status).toBe(200);
    expect(recheck.body.id).toBe(id);
    expect(control.calls).toEqual([`check ${id} send`, `check ${id}`, `recheck ${id}`]);

    // Running until cancelled: the calls made while it runs may take long on a busy machine.
    const running = await t.api('POST', '/v1/completions', { body: { prompt: 'Slow [[hang]]', wait: false, callback_url: 'https://127.0.0.1:9/hook' } });
    await until(async () => (await as('GET', '/admin/v1/state')).body.agents[0].state === 'busy');
    const busy = await as('POST', `/admin/v1/agents/${id}/check-site`, {});
    expect(busy.status).toBe(409);
    expect(busy.body.error.message).toMatch(/running a job/);
    expect((await as('POST', `/admin/v1/agents/${id}/check`)).body.state).toBe('busy');
    expect((await t.api('DELETE', `/v1/completions/${running.body.id}`)).body.status).toBe('cancelled');
    await until(async () => (await as('GET', '/admin/v1/state')).body.agents[0].state !== 'busy');
    // Resting after a usage limit: a recheck that finds the page ready ends the rest; one that does not leaves it.
    t.driver.agents.coolDown(id, Date.now() + 3_600_000);
    control.healthy = false;
    expect((await as('POST', `/admin/v1/agents/${id}/check`)).body.cooldown_until).not.toBeNull();
    control.healthy = true;
    const rested = await as('POST', `/admin/v1/agents/${id}/check`);
    expect(rested.body).toMatchObject({ state: 'idle', cooldown_until: null });
    expect(await lastAgentLine()).toMatchObject({ message: 'chatgpt-1: checked on request, no usage limit shows any more: it takes jobs again' });
    expect((await t.api('POST', '/v1/completions', { body: { prompt: 'after the rest' } })).status).toBe(200);

    control.steps.set(id, 'login');
    const login = await as('POST', `/admin/v1/agents/${id}/check-site`, {});
    expect(login.status).toBe(409);
    expect(login.body.error.message).toBe('A login is under way.');
  });

  it('removes an agent even when its browser profile cannot be deleted, and logs why', async () => {
    await start({ agents: { chatgpt: 1 } });
    const control = attach();
    control.failRemove = true;
    const id = t.agents[0]!.id;
    expect((await as('DELETE', `/admin/v1/agents/${id}`)).status).toBe(204);
    expect((await as('GET', '/admin/v1/state')).body.agents).toEqual([]);
    const last = (await as('GET', '/admin/v1/logs')).body.entries.at(-1);
    expect(last).toMatchObject({ level: 'warn', message: 'chatgpt-1: removed, but its browser profile could not be deleted: EBUSY: profile in use' });
  });
});
