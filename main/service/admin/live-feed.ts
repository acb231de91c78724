import type { JobSummary } from '../../contract/admin/jobs.js';
import type { LogEntryView } from '../../contract/admin/logs.js';
import type { AdminState } from '../../contract/admin/state.js';
import type { AgentPool } from '../../queue/agent-pool.js';
import type { ClusterAgents } from '../../queue/cluster-agents.js';
import type { JobEvents } from '../../queue/job-events.js';
import type { SettingsStore } from '../../settings/settings-store.js';
import type { AgentsConsole } from './agents.js';
import type { JobsConsole } from './jobs.js';
import type { LogsConsole } from './logs.js';
import type { StateConsole } from './state.js';

/** State changes closer together than this reach the dashboard as one update. */
const STATE_DEBOUNCE_MS = 200;

/** What the dashboard's live view hears: the state as it changes, each job change, each log entry, each deletion. */
export class LiveFeed {
  constructor(
    private readonly deps: {
      state: StateConsole;
      agents: AgentsConsole;
      jobs: JobsConsole;
      logs: LogsConsole;
      events: JobEvents;
      pool: AgentPool;
      /** Every device's agents: the status the dashboard shows follows them. */
      cluster: ClusterAgents;
      settings: SettingsStore;
    },
  ) {}

  /**
   * Feeds the live view: `onState` after anything that changes the state (coalesced),
   * `onJob` for every job change, `onLog` (if given) for every new log entry, `onJobDeleted`
   * (if given) with the id of every job deleted. Returns the function that stops the feed.
   */
  watch(
    onState: (state: AdminState) => void,
    onJob: (job: JobSummary) => void,
    onLog?: (entry: LogEntryView) => void,
    onJobDeleted?: (id: string) => void,
  ): () => void {
    const { state, agents, jobs, logs, events, pool, cluster, settings } = this.deps;
    let timer: NodeJS.Timeout | null = null;
    const changed = () => {
      timer ??= setTimeout(() => {
        timer = null;
        void state.read().then(onState);
      }, STATE_DEBOUNCE_MS);
    };
    const stops = [
      events.subscribeAll((job) => {
        onJob(jobs.summary(job));
        changed();
      }),
      pool.onChange(changed),
      cluster.onChange(changed),
      // A pause or cap changed in another tab, the tray or the command line.
      settings.onChange(changed),
      agents.onLoginChange(changed),
      ...(onLog ? [logs.subscribe(onLog)] : []),
      ...(onJobDeleted ? [jobs.onDeleted(onJobDeleted)] : []),
    ];
    return () => {
      for (const stop of stops) stop();
      if (timer) clearTimeout(timer);
    };
  }
}
