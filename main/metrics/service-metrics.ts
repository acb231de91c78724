import { Counter, Gauge, Histogram, Registry } from './exposition.js';
import { PROVIDERS } from '../core/providers.js';
import type { AgentState } from '../core/agent.js';
import type { Clock } from '../core/clock.js';
import type { AgentPool } from '../queue/agent-pool.js';
import type { HourlyUsage } from '../queue/hourly-usage.js';
import { EVERY_ACCOUNT, type StoreEvent } from '../core/jobs.js';
import type { JobStore } from '../queue/job-store.js';
import { isFinal } from '../queue/state-machine.js';
import type { SettingsStore } from '../settings/settings-store.js';
import type { WebhookAttempt } from '../webhooks/sender.js';

const AGENT_STATES: AgentState[] = ['idle', 'busy', 'needs_login', 'paused', 'error'];
/** Seconds: from a quick answer to the 10-minute attempt limit. */
const DURATION_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export interface MetricsSources {
  store: JobStore;
  pool: AgentPool;
  usage: HourlyUsage;
  settings: SettingsStore;
  clock: Clock;
}

/**
 * The service's figures for GET /metrics, in a registry of its own (several services may
 * run in one process: the tests). Counters follow the moves this instance makes as it
 * commits them and start at zero with the process, as Prometheus expects of counters: on a
 * shared database each move is counted by the instance that made it (so the instances'
 * counters add up), never from another's notice, which any role that can connect could send
 * again. Gauges are read when scraped.
 * Label values are providers, statuses, outcomes, error codes and route patterns: never a
 * prompt, an id or a URL.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly accepted;
  private readonly finished;
  private readonly attempts;
  private readonly webhooks;
  private readonly requests;
  private readonly deltaMismatches;
  private readonly queueTime;
  private readonly runTime;
  private readonly stopFollowing: () => void;

  constructor(private readonly s: MetricsSources) {
    const registry = this.registry;
    this.accepted = new Counter({
      name: 'chatbridge_jobs_accepted_total',
      help: 'Jobs accepted, by the provider asked for ("any" when none was).',
      labelNames: ['provider'] as const,
      registry,
    });
    this.finished = new Counter({
      name: 'chatbridge_jobs_finished_total',
      help: 'Jobs that reached a final status, by the provider of their last attempt ("none" if they never ran).',
      labelNames: ['provider', 'status'] as const,
      registry,
    });
    this.attempts = new Counter({
      name: 'chatbridge_attempts_total',
      help: 'Attempts that ended, by provider, outcome and error code ("" when it succeeded).',
      labelNames: ['provider', 'outcome', 'error_code'] as const,
      registry,
    });
    this.webhooks = new Counter({
      name: 'chatbridge_webhook_deliveries_total',
      help: 'Webhook delivery attempts, by result: delivered, or failed with the receiver\'s status class or "no_answer".',
      labelNames: ['result'] as const,
      registry,
    });
    this.requests = new Counter({
      name: 'chatbridge_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern ("unmatched" for none) and status code.',
      labelNames: ['method', 'route', 'status'] as const,
      registry,
    });
    this.deltaMismatches = new Counter({
      name: 'chatbridge_stream_delta_mismatch_total',
      help: 'Jobs that succeeded with an answer the pieces already streamed were not the start of (an agent published a piece it was not sure of).',
      registry,
    });
    this.queueTime = new Histogram({
      name: 'chatbridge_job_queue_seconds',
      help: 'Time from acceptance to the first attempt, by provider.',
      labelNames: ['provider'] as const,
      buckets: DURATION_BUCKETS,
      registry,
    });
    this.runTime = new Histogram({
      name: 'chatbridge_job_run_seconds',
      help: 'Time spent running, over all attempts of a finished job, by provider.',
      labelNames: ['provider'] as const,
      buckets: DURATION_BUCKETS,
      registry,
    });
    this.gauges(registry);
    this.stopFollowing = s.store.onEvent((event) => {
      if (!event.heard) this.onMove(event);
    });
  }

  /** One HTTP answer; `route` is the matched pattern (e.g. /v1/completions/:id), never the URL. */
  request(method: string, route: string | undefined, status: number): void {
    this.requests.inc({ method, route: route ?? 'unmatched', status: String(status) });
  }

  webhookAttempt(attempt: WebhookAttempt): void {
    const result = attempt.delivered
      ? 'delivered'
      : attempt.statusCode === null
        ? 'no_answer'
        : `failed_${Math.floor(attempt.statusCode / 100)}xx`;
    this.webhooks.inc({ result });
  }

  /** A job succeeded with an answer its streamed pieces were not the start of. */
  deltaMismatch(): void {
    this.deltaMismatches.inc();
  }

  stop(): void {
    this.stopFollowing();
  }

  private onMove({ job, from }: StoreEvent): void {
    if (from === null) {
      this.accepted.inc({ provider: job.req_provider ?? 'any' });
    } else if (job.status === 'dispatched') {
      if (job.attempts === 1 && job.queue_ms !== null) this.queueTime.observe({ provider: job.provider! }, job.queue_ms / 1000);
    } else if (from === 'dispatched') {
      void this.countAttempt(job.id);
    }
    if (isFinal(job.status)) {
      const provider = job.provider ?? 'none';
      this.finished.inc({ provider, status: job.status });
      if (job.attempts > 0) this.runTime.observe({ provider }, job.run_ms / 1000);
    }
  }

  /** How the attempt that just ended went, from the store (read after the event: its outcome is committed). */
  private async countAttempt(jobId: string): Promise<void> {
    const last = (await this.s.store.attempts(jobId)).at(-1);
    if (last?.outcome) {
      this.attempts.inc({ provider: last.provider, outcome: last.outcome, error_code: last.outcome === 'succeeded' ? '' : (last.error_code ?? '') });
    }
  }

  /** Figures read at scrape time from the queue, the agents and the hourly window. */
  private gauges(registry: Registry): void {
    const { store, pool, usage, settings, clock } = this.s;
    new Gauge({
      name: 'chatbridge_queue_depth',
      help: 'Jobs waiting in the queue.',
      registry,
      async collect(set) {
        set(await store.queuedCount(EVERY_ACCOUNT));
      },
    });
    new Gauge({
      name: 'chatbridge_queue_oldest_age_seconds',
      help: 'Age of the oldest queued job (0 when the queue is empty).',
      registry,
      async collect(set) {
        const oldest = await store.oldestQueuedAt(EVERY_ACCOUNT);
        set(oldest === null ? 0 : Math.max(0, clock.now() - oldest) / 1000);
      },
    });
    new Gauge({
      name: 'chatbridge_agents',
      help: 'Agents by provider and state.',
      labelNames: ['provider', 'state'] as const,
      registry,
      collect(set) {
        const agents = pool.list();
        for (const provider of PROVIDERS) {
          for (const state of AGENT_STATES) {
            set({ provider, state }, agents.filter((a) => a.provider === provider && pool.state(a.id) === state).length);
          }
        }
      },
    });
    new Gauge({
      name: 'chatbridge_hourly_usage',
      help: 'Attempts started in the last hour, per provider and in all ("all").',
      labelNames: ['provider'] as const,
      registry,
      collect(set) {
        set({ provider: 'all' }, usage.count('global'));
        for (const provider of PROVIDERS) set({ provider }, usage.count({ provider }));
      },
    });
    new Gauge({
      name: 'chatbridge_hourly_cap',
      help: 'The hourly cap, per provider and in all ("all"); absent where there is no cap.',
      labelNames: ['provider'] as const,
      registry,
      collect(set) {
        const s = settings.get();
        if (s.globalCap !== null) set({ provider: 'all' }, s.globalCap);
        for (const provider of PROVIDERS) {
          const cap = s.providerCaps[provider];
          if (cap !== null && cap !== undefined) set({ provider }, cap);
        }
      },
    });
  }
}
