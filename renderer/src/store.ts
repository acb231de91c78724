import { create } from 'zustand';
import type { AdminApi, AdminState, AgentView, JobSummary, LogEntry } from './api.js';

export type Connection = 'connecting' | 'live' | 'reconnecting';

/** How many recent jobs the page keeps; the Jobs page shows them all. */
export const JOB_LIMIT = 100;
/** How many recent log entries the page keeps and loads. */
export const LOG_LIMIT = 500;

export interface DashboardState {
  api: AdminApi | null;
  /** The last `state` event: agents, settings, status. Null until the first one arrives. */
  admin: AdminState | null;
  /** Recent jobs, newest first, kept current by `job` events. */
  jobs: JobSummary[];
  /** Recent log entries, oldest first: loaded by the log view, kept current by `log` events. */
  logs: LogEntry[];
  /** How many `log` events ever arrived; a load remembers it to keep the ones that arrive meanwhile. */
  logsReceived: number;
  connection: Connection;
  retryInMs: number;
  /** The server refused the token: the page asks for a fresh link. */
  rejected: boolean;
  setAdmin(admin: AdminState): void;
  /** An agent as a PATCH returned it, shown before the stream's next state event. */
  putAgent(agent: AgentView): void;
  setJobs(jobs: JobSummary[]): void;
  upsertJob(job: JobSummary): void;
  removeJob(id: string): void;
  addLog(entry: LogEntry): void;
  /** A load's result, plus the entries that arrived since `mark` (`logsReceived` when it started). */
  setLogs(entries: LogEntry[], mark: number): void;
  setConnection(connection: Connection, retryInMs?: number): void;
  reject(): void;
}

const newestFirst = (a: JobSummary, b: JobSummary) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id);

export const useDashboard = create<DashboardState>()((set) => ({
  api: null,
  admin: null,
  jobs: [],
  logs: [],
  logsReceived: 0,
  connection: 'connecting',
  retryInMs: 0,
  rejected: false,
  setAdmin: (admin) => set({ admin }),
  putAgent: (agent) =>
    set((s) => (s.admin ? { admin: { ...s.admin, agents: s.admin.agents.map((a) => (a.id === agent.id ? agent : a)) } } : {})),
  setJobs: (jobs) => set({ jobs: [...jobs].sort(newestFirst).slice(0, JOB_LIMIT) }),
  upsertJob: (job) =>
    set((s) => ({ jobs: [job, ...s.jobs.filter((j) => j.id !== job.id)].sort(newestFirst).slice(0, JOB_LIMIT) })),
  removeJob: (id) => set((s) => ({ jobs: s.jobs.filter((j) => j.id !== id) })),
  addLog: (entry) => set((s) => ({ logs: [...s.logs, entry].slice(-LOG_LIMIT), logsReceived: s.logsReceived + 1 })),
  setLogs: (entries, mark) =>
    set((s) => {
      const since = s.logs.slice(s.logs.length - Math.min(s.logsReceived - mark, s.logs.length));
      const loaded = new Set(entries.map((e) => e.seq));
      return { logs: [...entries, ...since.filter((e) => !loaded.has(e.seq))].slice(-LOG_LIMIT) };
    }),
  setConnection: (connection, retryInMs = 0) => set({ connection, retryInMs }),
  reject: () => set({ rejected: true }),
}));
