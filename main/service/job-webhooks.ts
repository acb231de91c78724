/**
 * What the webhook sender asks of the rest of the application, as named functions rather
 * than closures inside the assembly: the sender (main/webhooks/) knows outbox rows and
 * transports, not jobs, profiles or accounts.
 */
import type { Profile } from '../contract/profile.js';
import type { JobStore } from '../queue/job-store.js';
import type { AccountSecrets } from '../webhooks/account-secrets.js';
import type { RenderDelivery, SecretOf } from '../webhooks/sender.js';
import type { SigningSecret } from '../webhooks/signing-secret.js';
import type { Completions } from './completions.js';

/** The secret a delivery is signed with: the service's own, or (H) the job's account's. */
export function deliverySecrets(signingSecret: SigningSecret, accountSecrets: AccountSecrets): SecretOf {
  return async (account) => (account === null ? signingSecret.get() : accountSecrets.of(account));
}

/** Where a job's webhook goes and what it says: the job object as the profile renders it, read when the delivery is made. */
export function jobWebhooks(store: JobStore, profile: Profile, completions: Completions): RenderDelivery {
  return async (jobId) => {
    const job = (await store.view(jobId))!;
    return { url: job.callback_url!, body: profile.webhookBody(job, completions.agentName(job)), account: job.account_id };
  };
}
