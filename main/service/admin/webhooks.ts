import type { WebhookLog } from '../../contract/admin/webhooks.js';
import { ApiError } from '../../core/errors.js';
import { timestamp, timestampOrNull as ts } from '../../core/timestamps.js';
import { NoDelivery, type WebhookDeliveries } from '../../webhooks/deliveries.js';
import type { SigningSecret } from '../../webhooks/signing-secret.js';

/** The dashboard's webhooks: a job's delivery log, its redelivery, and the service's signing secret. */
export class WebhooksConsole {
  constructor(
    private readonly deps: {
      webhooks: WebhookDeliveries;
      signingSecret: SigningSecret;
    },
  ) {}

  /** The delivery log of a job's webhook; null for a job without one. */
  async log(jobId: string): Promise<WebhookLog | null> {
    try {
      const log = await this.deps.webhooks.log(jobId);
      return {
        url: log.url,
        state: log.state,
        round: log.round,
        next_attempt_at: ts(log.nextAttemptAt),
        attempts: log.attempts.map((a) => ({
          attempt: a.attempt,
          round: a.round,
          started_at: timestamp(a.started_at),
          duration_ms: a.duration_ms,
          status_code: a.status_code,
          error: a.error,
        })),
      };
    } catch (error) {
      if (error instanceof NoDelivery) return null;
      throw error;
    }
  }

  async redeliver(jobId: string): Promise<WebhookLog> {
    try {
      await this.deps.webhooks.redeliver(jobId);
    } catch (error) {
      if (error instanceof NoDelivery) throw new ApiError('NOT_FOUND', error.message);
      throw error;
    }
    return (await this.log(jobId))!;
  }

  secret(): string {
    return this.deps.signingSecret.get();
  }

  rotateSecret(): Promise<string> {
    return this.deps.signingSecret.rotate();
  }
}
