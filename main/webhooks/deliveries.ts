import type { Clock } from '../core/clock.js';
import type { JobView } from '../core/jobs.js';
import type { DeliveryAttemptRow, DeliveryRow, DeliveryState, WebhookOutbox } from './outbox.js';

export interface DeliveryLog {
  jobId: string;
  url: string;
  state: DeliveryState;
  /** 1, plus one for each redelivery asked for. */
  round: number;
  /** When the next attempt is due (epoch ms); null unless pending. */
  nextAttemptAt: number | null;
  attempts: DeliveryAttemptRow[];
}

/** The job has no webhook delivery to show or repeat; the message says why, for a person. */
export class NoDelivery extends Error {}

/**
 * A job's webhook as the command line and the dashboard show it: its log, and redelivery
 * on demand. A redelivery is a new round with the full schedule, sent by the running
 * server: `onRedeliver` wakes it in-process; a server in another process notices the
 * database change within a second (SQLite), or hears it at once (PostgreSQL: any instance
 * may send it).
 */
export class WebhookDeliveries {
  constructor(
    private readonly jobs: { view(id: string): Promise<JobView | undefined> },
    private readonly outbox: WebhookOutbox,
    private readonly clock: Clock,
    private readonly onRedeliver: () => void = () => {},
  ) {}

  async log(jobId: string): Promise<DeliveryLog> {
    const { job, delivery } = await this.find(jobId);
    return {
      jobId,
      url: job.callback_url!,
      state: delivery.state,
      round: delivery.round,
      nextAttemptAt: delivery.next_at,
      attempts: await this.outbox.attempts(jobId),
    };
  }

  async redeliver(jobId: string): Promise<DeliveryLog> {
    await this.find(jobId);
    await this.outbox.redeliver(jobId, this.clock.now());
    this.onRedeliver();
    return this.log(jobId);
  }

  private async find(jobId: string): Promise<{ job: JobView; delivery: DeliveryRow }> {
    const job = await this.jobs.view(jobId);
    if (!job) throw new NoDelivery(`No job ${jobId}.`);
    if (job.callback_url === null) throw new NoDelivery(`Job ${jobId} has no callback_url, so it has no webhook.`);
    const delivery = await this.outbox.get(jobId);
    if (!delivery) throw new NoDelivery(`Job ${jobId} is ${job.status}: its webhook is sent when it finishes.`);
    return { job, delivery };
  }
}
