import type { AdminApi, AdminState, JobSummary, LogEntry } from './api.js';
import { streamEvents } from './events.js';
import { JOB_LIMIT, useDashboard } from './store.js';

/**
 * Feeds the store from the event stream. After every (re)connect the job list is read
 * again, since changes made while the stream was down were never sent; job events that
 * arrive while that read is in flight are applied on top of it, as they are newer.
 */
export function startLive(token: string, api: AdminApi, onUnauthorized: () => void, fetchFn: typeof fetch = fetch): () => void {
  const store = useDashboard.getState();
  let pending: JobSummary[] | null = null;

  const reloadJobs = () => {
    const buffered: JobSummary[] = [];
    pending = buffered;
    api.jobs(JOB_LIMIT).then(
      (jobs) => {
        if (pending !== buffered) return;
        pending = null;
        store.setJobs(jobs);
        for (const job of buffered) store.upsertJob(job);
      },
      () => {
        if (pending === buffered) pending = null;
      },
    );
  };

  return streamEvents(
    token,
    {
      onOpen() {
        store.setConnection('live');
        reloadJobs();
      },
      onEvent(name, data) {
        if (name === 'state') store.setAdmin(data as AdminState);
        // The log view loads the recent entries itself (and again after a reconnect).
        if (name === 'log') store.addLog(data as LogEntry);
        if (name === 'job') {
          pending?.push(data as JobSummary);
          store.upsertJob(data as JobSummary);
        }
        if (name === 'job_deleted') store.removeJob((data as { id: string }).id);
      },
      onDown: (retryInMs) => store.setConnection('reconnecting', retryInMs),
      onUnauthorized,
    },
    fetchFn,
  );
}
