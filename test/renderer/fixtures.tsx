import { render } from '@testing-library/react';
import { vi, type Mock } from 'vitest';
import { App } from '../../renderer/src/App.js';
import type { AdminApi, AdminState, AgentView, JobDetail, JobSummary } from '../../renderer/src/api.js';
import { useDashboard } from '../../renderer/src/store.js';

const NOW = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const PROVIDERS = ['chatgpt', 'claude', 'gemini', 'deepseek', 'qwen', 'perplexity'];
const usage = { rate_limit_per_hour: null, used_this_hour: 0, next_slot_at: null };

export function agent(over: Partial<AgentView> = {}): AgentView {
  return {
    id: 'agt_1',
    name: 'chatgpt-1',
    provider: 'chatgpt',
    state: 'idle',
    detail: null,
    enabled: true,
    position: 1,
    cap_per_hour: null,
    used_this_hour: 0,
    next_slot_at: null,
    cooldown_until: null,
    next_check_at: null,
    pause_ms: null,
    pause_until: null,
    proxy: null,
    pairing: null,
    created_at: NOW,
    ...over,
  };
}

/** The state the server would report for these agents. */
export function adminState(agents: AgentView[] = [], over: Partial<AdminState['settings']> = {}): AdminState {
  const providers = Object.fromEntries(
    PROVIDERS.map((p) => {
      const mine = agents.filter((a) => a.provider === p);
      return [p, { agents_idle: mine.filter((a) => a.state === 'idle').length, agents_total: mine.length, ...usage }];
    }),
  );
  return {
    version: '0.1.0',
    profile: 'personal',
    data_dir: '/home/me/.chatbridge',
    settings: {
      paused: false,
      rotation: 'round_robin',
      global_cap: null,
      provider_caps: Object.fromEntries(PROVIDERS.map((p) => [p, null])),
      retention_days: 90,
      pause_ms: 10_000,
      streaming: false,
      ...over,
    },
    agents,
    status: {
      providers,
      queue: { depth: 0, oldest_queued_at: null },
      agents: { idle: agents.filter((a) => a.state === 'idle').length, busy: agents.filter((a) => a.state === 'busy').length, total: agents.length },
      devices: [{ name: 'laptop', base_url: 'http://127.0.0.1:4555', online: true, paused: false, agents: [] }],
      global: { ...usage },
      rotation: 'round_robin',
    },
  };
}

export function job(over: Partial<JobSummary> = {}): JobSummary {
  return {
    id: 'job_1',
    status: 'succeeded',
    provider: 'chatgpt',
    agent_id: 'agt_1',
    agent_name: 'chatgpt-1',
    variant: null,
    model_used: null,
    attempts: 1,
    prompt_excerpt: 'Say hello',
    created_at: NOW,
    finished_at: NOW,
    took_ms: 1_250,
    error: null,
    ...over,
  };
}

export function jobDetail(summary: JobSummary, over: Partial<JobDetail> = {}): JobDetail {
  return {
    job: {
      id: summary.id,
      status: summary.status as JobDetail['job']['status'],
      response: summary.status === 'succeeded' ? 'Hello!' : null,
      provider: summary.provider,
      agent_id: summary.agent_id,
      agent_name: summary.agent_name,
      variant: null,
      model_used: null,
      conversation_ref: null,
      attempts: summary.attempts,
      queue_ms: 12,
      run_ms: 1_500,
      created_at: summary.created_at,
      error: summary.error,
      metadata: {},
      attachments: [],
    },
    prompt: summary.prompt_excerpt,
    content_pruned_at: null,
    took_ms: summary.took_ms,
    attempts: [],
    diagnostics: [],
    webhook: null,
    waiting_because: null,
    ...over,
  };
}

export type FakeApi = { [K in keyof AdminApi]: Mock<AdminApi[K]> };

/** Every call resolves to something harmless unless a test says otherwise. */
export function fakeApi(state: AdminState): FakeApi {
  return {
    state: vi.fn(async () => state),
    updateSettings: vi.fn(async () => state),
    updateAgent: vi.fn(async (id: string) => state.agents.find((a) => a.id === id)!),
    addAgent: vi.fn(async (provider: string) => ({ ...state.agents[0]!, id: 'agt_new', provider, pairing: 'login' as const })),
    removeAgent: vi.fn(async () => {}),
    logIn: vi.fn(async (id: string) => ({ ...state.agents.find((a) => a.id === id)!, pairing: 'login' as const })),
    endLogIn: vi.fn(async (id: string) => state.agents.find((a) => a.id === id)!),
    checkSite: vi.fn(),
    recheck: vi.fn(async (id: string) => state.agents.find((a) => a.id === id)!),
    screen: vi.fn(() => () => {}),
    input: vi.fn(async () => {}),
    keys: vi.fn(async () => []),
    accounts: vi.fn(async () => []),
    createKey: vi.fn(),
    revokeKey: vi.fn(),
    jobs: vi.fn(async () => []),
    job: vi.fn(),
    cancel: vi.fn(),
    diagnosticFile: vi.fn(),
    deleteJob: vi.fn(async () => {}),
    usage: vi.fn(),
    redeliver: vi.fn(),
    signingSecret: vi.fn(async () => 'whsec_current'),
    rotateSigningSecret: vi.fn(async () => 'whsec_next'),
    logs: vi.fn(async () => []),
  };
}

/** The whole app on one page, with the store as the event stream would have filled it. */
export function renderPage(hash: string, admin: AdminState, jobs: JobSummary[] = [], api = fakeApi(admin)) {
  window.location.hash = hash;
  useDashboard.setState({ api, admin, jobs, logs: [], logsReceived: 0, connection: 'live', retryInMs: 0, rejected: false });
  return { api, ...render(<App />) };
}
