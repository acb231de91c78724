/**
 * The dashboard's client of /admin/v1. Types come from the server's schemas through
 * `import type` only, so none of the server is bundled into the page.
 */
import type { Static } from '@sinclair/typebox';
import type {
  AccountView,
  AdminState,
  AgentPatch,
  AgentView,
  JobDetail,
  JobList,
  JobSummary,
  KeyCreate,
  KeyCreated,
  KeyView,
  SettingsPatch,
  SigningSecretView,
  WebhookLog,
} from '../../main/contract/admin/index.js';
import type { LogEntryView, LogList } from '../../main/contract/admin/index.js';
import type { AgentCreate, ViewFrame, ViewInput } from '../../main/contract/admin/index.js';
import type { DiagnosticBundleView, SiteCheckView } from '../../main/contract/admin/index.js';
import type { UsageFigures, UsageGroupView, UsageRange, UsageView } from '../../main/contract/admin/index.js';
import type { Provider } from '../../main/core/providers.js';
import { streamEvents } from './events.js';

export type { AccountView, AdminState, AgentPatch, AgentView, JobDetail, JobSummary, KeyCreate, KeyView, SettingsPatch, WebhookLog };
export type KeyCreated = Static<typeof KeyCreated>;
export type Rotation = AdminState['settings']['rotation'];
export type Scope = KeyCreate['scopes'][number];
export type LogEntry = LogEntryView;
export type LogLevel = LogEntry['level'];
export type { Provider, ViewFrame, ViewInput };
export type { UsageFigures, UsageGroupView, UsageRange, UsageView };
export type { DiagnosticBundleView, SiteCheckView };

/** Which jobs the Usage page counts: those of one key, one agent, or both. */
export interface UsageFilter {
  key?: string;
  agent?: string;
}

/** A failed call, with a message meant for the person looking at the page. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface AdminApi {
  state(): Promise<AdminState>;
  updateSettings(patch: SettingsPatch): Promise<AdminState>;
  updateAgent(id: string, patch: AgentPatch): Promise<AgentView>;
  /** "Add account": the new agent, with its login under way in its page. */
  addAgent(provider: Provider, name?: string): Promise<AgentView>;
  removeAgent(id: string): Promise<void>;
  /** Starts a login in the agent's page; while one is under way, asks the server to check now. */
  logIn(id: string): Promise<AgentView>;
  endLogIn(id: string): Promise<AgentView>;
  /** Which cue finds each role of the agent's pack on a fresh chat (nothing is sent). */
  checkSite(id: string): Promise<SiteCheckView>;
  /** "Check now": the agent looks at its page again at once. */
  recheck(id: string): Promise<AgentView>;
  /** Pictures of the agent's page as it changes; `onDown` while the stream reconnects. Returns the stop function. */
  screen(id: string, onFrame: (frame: ViewFrame) => void, onDown: () => void): () => void;
  /** A click or keys for the agent's page (during a login). */
  input(id: string, event: ViewInput): Promise<void>;
  keys(): Promise<KeyView[]>;
  /** (hosted) The accounts with their queue depth, usage, keys and retention. */
  accounts(): Promise<AccountView[]>;
  createKey(input: KeyCreate): Promise<KeyCreated>;
  revokeKey(id: string): Promise<KeyView>;
  jobs(limit: number): Promise<JobSummary[]>;
  job(id: string): Promise<JobDetail>;
  cancel(id: string): Promise<JobDetail>;
  /** One file of a diagnostic bundle (fetched with the token: a plain link could not send it). */
  diagnosticFile(bundle: string, file: string): Promise<Blob>;
  /** Deletes a finished job (a queued or running one is refused: cancel it first). */
  deleteJob(id: string): Promise<void>;
  /** Usage history over `range`; days start at the browser's local midnight. */
  usage(range: UsageRange, filter: UsageFilter): Promise<UsageView>;
  redeliver(id: string): Promise<WebhookLog>;
  signingSecret(): Promise<string>;
  rotateSigningSecret(): Promise<string>;
  /** The newest `limit` log entries at `level` or above, oldest first. */
  logs(limit: number, level?: LogLevel): Promise<LogEntry[]>;
}

export const NOT_RUNNING = 'ChatBridge is not answering. Check that `chatbridge serve` (or the desktop app) is still running.';
export const LINK_REJECTED = 'This dashboard link is no longer accepted. Open the current one: `chatbridge dashboard` prints it.';

/** `onUnauthorized` runs when the server refuses the token, so the page can ask for a new link. */
export function createApi(token: string, onUnauthorized: () => void, fetchFn: typeof fetch = fetch): AdminApi {
  async function send(method: string, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await fetchFn(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch {
      throw new ApiError(0, 'NETWORK', NOT_RUNNING);
    }
  }

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await send(method, path, body);
    const text = await res.text();
    const parsed: unknown = text ? safeJson(text) : undefined;
    if (res.ok) return parsed as T;
    if (res.status === 401) onUnauthorized();
    throw toError(res.status, parsed);
  }

  return {
    state: () => call('GET', '/admin/v1/state'),
    updateSettings: (patch) => call('PATCH', '/admin/v1/settings', patch),
    updateAgent: (id, patch) => call('PATCH', `/admin/v1/agents/${encodeURIComponent(id)}`, patch),
    addAgent: (provider, name) => call('POST', '/admin/v1/agents', { provider, ...(name ? { name } : {}) } satisfies AgentCreate),
    removeAgent: (id) => call('DELETE', `/admin/v1/agents/${encodeURIComponent(id)}`),
    logIn: (id) => call('POST', `/admin/v1/agents/${encodeURIComponent(id)}/login`),
    endLogIn: (id) => call('DELETE', `/admin/v1/agents/${encodeURIComponent(id)}/login`),
    checkSite: (id) => call('POST', `/admin/v1/agents/${encodeURIComponent(id)}/check-site`, { send: false }),
    recheck: (id) => call('POST', `/admin/v1/agents/${encodeURIComponent(id)}/check`),
    screen: (id, onFrame, onDown) =>
      streamEvents(
        token,
        {
          onOpen: () => {},
          onEvent: (name, data) => name === 'frame' && onFrame(data as ViewFrame),
          onDown,
          onUnauthorized,
        },
        fetchFn,
        `/admin/v1/agents/${encodeURIComponent(id)}/screen`,
      ),
    input: (id, event) => call('POST', `/admin/v1/agents/${encodeURIComponent(id)}/screen/input`, event),
    keys: () => call('GET', '/admin/v1/keys'),
    accounts: () => call('GET', '/admin/v1/accounts'),
    createKey: (input) => call('POST', '/admin/v1/keys', input),
    revokeKey: (id) => call('DELETE', `/admin/v1/keys/${encodeURIComponent(id)}`),
    jobs: async (limit) => (await call<Static<typeof JobList>>('GET', `/admin/v1/jobs?limit=${limit}`)).jobs,
    job: (id) => call('GET', `/admin/v1/jobs/${encodeURIComponent(id)}`),
    cancel: (id) => call('POST', `/admin/v1/jobs/${encodeURIComponent(id)}/cancel`),
    diagnosticFile: async (bundle, file) => {
      const res = await send('GET', `/admin/v1/diagnostics/${encodeURIComponent(bundle)}/${encodeURIComponent(file)}`);
      if (res.ok) return res.blob();
      if (res.status === 401) onUnauthorized();
      const text = await res.text();
      throw toError(res.status, text ? safeJson(text) : undefined);
    },
    deleteJob: (id) => call('DELETE', `/admin/v1/jobs/${encodeURIComponent(id)}`),
    usage: (range, filter) => {
      const query = new URLSearchParams({ range, tz_offset: String(-new Date().getTimezoneOffset()) });
      if (filter.key) query.set('key', filter.key);
      if (filter.agent) query.set('agent', filter.agent);
      return call('GET', `/admin/v1/usage?${query}`);
    },
    redeliver: (id) => call('POST', `/admin/v1/jobs/${encodeURIComponent(id)}/webhook/redeliver`),
    signingSecret: async () => (await call<Static<typeof SigningSecretView>>('GET', '/admin/v1/webhooks/secret')).secret,
    rotateSigningSecret: async () => (await call<Static<typeof SigningSecretView>>('POST', '/admin/v1/webhooks/secret/rotate')).secret,
    logs: async (limit, level) =>
      (await call<Static<typeof LogList>>('GET', `/admin/v1/logs?limit=${limit}${level ? `&level=${level}` : ''}`)).entries,
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function toError(status: number, body: unknown): ApiError {
  const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
  if (status === 401) return new ApiError(status, 'UNAUTHORIZED', LINK_REJECTED);
  if (error?.message) return new ApiError(status, error.code ?? 'ERROR', error.message);
  return new ApiError(status, 'ERROR', `ChatBridge answered with an unexpected error (HTTP ${status}). Try again; if it keeps happening, restart ChatBridge.`);
}

/** The words to show for anything an action threw. */
export function plainMessage(error: unknown): string {
  return error instanceof ApiError ? error.message : 'Something went wrong in the page. Reload it and try again.';
}
