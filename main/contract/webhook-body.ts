import { Job } from './schemas.js';

/**
 * Fastify's serializer (fast-json-stringify) writes a response's required fields first, in
 * schema order, then its optional ones; the webhook does the same.
 */
const FIELDS = Object.keys(Job.properties) as (keyof Job)[];
const REQUIRED = new Set<string>(Job.required);
const FIELD_ORDER = [...FIELDS.filter((f) => REQUIRED.has(f)), ...FIELDS.filter((f) => !REQUIRED.has(f))];

/**
 * The webhook body: the job object exactly as `GET /v1/completions/{id}` serialises it
 * (decisions.md), field order included, so a receiver may compare the two byte for byte.
 * Rendered here, beside the schema it follows; main/webhooks/ sends the string it is given.
 */
export function webhookBody(job: Job): string {
  const ordered: Partial<Record<keyof Job, unknown>> = {};
  for (const field of FIELD_ORDER) if (job[field] !== undefined) ordered[field] = job[field];
  return JSON.stringify(ordered);
}
