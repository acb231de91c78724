import type { FastifyInstance } from 'fastify';
import { IdParams, ok } from '../../contract/admin/shared.js';
import { SigningSecretView, WebhookLog } from '../../contract/admin/webhooks.js';

/** What these routes ask of the application layer (main/service/admin/webhooks.ts). */
export interface WebhooksPort {
  redeliver(jobId: string): Promise<WebhookLog>;
  secret(): string;
  rotateSecret(): Promise<string>;
}

/** A finished job's webhook sent again, and the service's signing secret shown and replaced. */
export async function webhookRoutes(app: FastifyInstance, { webhooks }: { webhooks: WebhooksPort }): Promise<void> {
  app.post<{ Params: { id: string } }>(
    '/jobs/:id/webhook/redeliver',
    { schema: { summary: "Send a finished job's webhook again", params: IdParams, response: ok(WebhookLog) } },
    async (request) => webhooks.redeliver(request.params.id),
  );

  app.get('/webhooks/secret', { schema: { summary: 'The signing secret', response: ok(SigningSecretView) } }, async () => ({
    secret: webhooks.secret(),
  }));

  app.post('/webhooks/secret/rotate', { schema: { summary: 'Replace the signing secret', response: ok(SigningSecretView) } }, async () => ({
    secret: await webhooks.rotateSecret(),
  }));
}
