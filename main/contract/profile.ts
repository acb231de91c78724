/**
 * Where Profile F (a person's own install) and Profile H (hosted, many accounts) differ,
 * decided in one place from the `serve --profile` setting (decisions.md): the timestamp
 * format, the job object and the 202 body, the `details` of job-outcome errors, the
 * `priority` range, what `queue_position` counts, whether a refused `wait: false` job is
 * kept, whether keys belong to accounts, the webhook body and which receivers may be
 * called. Routes, the queue and the webhooks ask the profile; none of them tests its name.
 */
import type { JobView, AttemptRow } from '../core/jobs.js';
import { timestamp, timestampMs } from '../core/timestamps.js';
import { waitSentence, type WaitReason } from '../core/wait-reason.js';
import { attemptRecords, hostedJobObject, jobObject, type JobWait } from './job-object.js';
import { webhookBody } from './webhook-body.js';
import {
  Accepted,
  completionRequestSchema,
  HostedJob,
  Job,
  HostedStatus,
  Status,
  type Accepted as AcceptedBody,
} from './schemas.js';
import { hasAccounts, type ProfileName } from '../core/profile-name.js';

export interface Profile {
  name: ProfileName;
  /** The OpenAPI document's title: the hosted profile's names itself. */
  title: string;
  /** api.md Limits: `priority`. */
  priority: { min: number; max: number };
  /** The messages whose shape differs, for validation, serialisation and the OpenAPI document. */
  schemas: {
    request: ReturnType<typeof completionRequestSchema>;
    job: typeof Job | typeof HostedJob;
    accepted: typeof Accepted | typeof HostedJob;
    status: typeof Status | typeof HostedStatus;
  };
  /** What GET /v1/status shows the caller of the service's status report. */
  statusBody(status: Status): Status | HostedStatus;
  /** Timestamps as the contract writes them. */
  timestamp(ms: number): string;
  /**
   * `queuePosition` is what `queue_position` counts (see `queuePosition` below). `wait`, of a
   * queued job: why it waits (F only: the reason names the operator's agents and devices).
   */
  jobObject(row: JobView, agentName: string | null, queuePosition?: number, wait?: JobWait): Job | HostedJob;
  /** The body of 202 for an accepted `wait: false` job. */
  acceptedBody(row: JobView, agentName: string | null): AcceptedBody | HostedJob;
  /**
   * What `queue_position` means: (F) the job's 1-based place in dispatch order among the
   * account's queued jobs; (H) the number of the caller's jobs queued at that moment.
   */
  queuePosition: 'place' | 'count';
  /**
   * A `wait: false` job without `callback_url` that cannot start now: (F) refused with the
   * 503; (H) accepted and kept queued, the 503 naming it in `details.job_id`.
   */
  keepsRefusedJobs: boolean;
  /** The OpenAPI description's words for that case (Markdown, one list item). */
  cannotStartNowNote: string;
  /** (H) Keys belong to accounts the operator creates; (F) the install is one account. */
  accounts: boolean;
  /** `details` of a 502 for a failed job. */
  failureDetails(row: JobView, attempts: AttemptRow[]): Record<string, unknown>;
  /** `details` of a 504 JOB_TIMEOUT and of a 499 JOB_CANCELLED. */
  outcomeDetails(row: JobView): Record<string, unknown>;
  /** The webhook body of a finished job. */
  webhookBody(row: JobView, agentName: string | null): string;
  /**
   * (H) Webhooks go only to public internet addresses unless the operator allows private
   * receivers; (F) the receiver is usually on the same machine, so any address is called.
   */
  publicWebhooksOnly: boolean;
  /**
   * Why a job waits, as its caller is told (in a 504's message): (F) in full, agents and
   * devices by name; (H) in general words: the agents and devices are the operator's.
   */
  toldWhy(why: WaitReason): string;
  /** The refusal of an `agent_id` of another provider: (H) reads as an unknown agent, telling nothing of the operator's. */
  agentOfOtherProvider(agentId: string, agentProvider: string, asked: string): string;
}

/** What an `agent_id` no agent has is told. */
export const unknownAgent = (agentId: string) => `No agent ${agentId} on this account.`;

export const personalProfile: Profile = {
  name: 'personal',
  title: 'ChatBridge — Prompt Completion Service',
  priority: { min: -10, max: 100 },
  schemas: { request: completionRequestSchema({ min: -10, max: 100 }), job: Job, accepted: Accepted, status: Status },
  statusBody: (status) => status,
  timestamp,
  jobObject,
  acceptedBody: (row) => ({ id: row.id, status: 'queued', created_at: timestamp(row.created_at) }),
  queuePosition: 'place',
  keepsRefusedJobs: false,
  cannotStartNowNote: `- \`wait: false\` without \`callback_url\` answers 202 only when an agent is free right now, and 503
  (\`NO_AGENT_AVAILABLE\`, \`PROVIDER_RATE_LIMITED\`, \`NO_DEVICE_ONLINE\`) whenever none is. To queue a job
  for later, give a \`callback_url\`, or send \`wait: true\` and, after a 504, poll \`GET /v1/completions/{id}\`.`,
  accounts: hasAccounts('personal'),
  // (F) the per-attempt record; the job id as (H) has it.
  failureDetails: (row, attempts) => ({ job_id: row.id, attempts: attemptRecords(attempts) }),
  outcomeDetails: (row) => ({ job_id: row.id, status: row.status }),
  webhookBody: (row, agentName) => webhookBody(jobObject(row, agentName)),
  publicWebhooksOnly: false,
  toldWhy: waitSentence,
  agentOfOtherProvider: (agentId, agentProvider, asked) => `Agent ${agentId} is a ${agentProvider} agent, not ${asked}.`,
};

export const hostedProfile: Profile = {
  name: 'hosted',
  title: 'ChatBridge — Prompt Completion Service (Profile H, hosted)',
  priority: { min: -10, max: 10 },
  schemas: { request: completionRequestSchema({ min: -10, max: 10 }), job: HostedJob, accepted: HostedJob, status: HostedStatus },
  statusBody: ({ providers, queue }) => ({ providers, queue }),
  timestamp: timestampMs,
  jobObject: (row, _agentName, queuePosition) => hostedJobObject(row, queuePosition),
  acceptedBody: (row) => hostedJobObject(row),
  queuePosition: 'count',
  keepsRefusedJobs: true,
  cannotStartNowNote: `- \`wait: false\` without \`callback_url\` answers 202 with the job when an agent is free right now. When none is,
  it answers 503 (\`NO_AGENT_AVAILABLE\`, \`PROVIDER_RATE_LIMITED\`) and the job is still accepted and stays queued: its
  id is in \`details.job_id\`, and a repeat with the same \`Idempotency-Key\` returns it with 200.`,
  accounts: hasAccounts('hosted'),
  failureDetails: (row) => ({ job_id: row.id, attempts: row.attempts }),
  outcomeDetails: (row) => ({ job_id: row.id, status: row.status }),
  // api.md Events (H): the job fields except agent_name, content_pruned_at and queue_position.
  webhookBody: (row) => {
    const { agent_name: _name, content_pruned_at: _pruned, queue_position: _position, ...fields } = hostedJobObject(row);
    return webhookBody(fields as Job);
  },
  publicWebhooksOnly: true,
  toldWhy: (why) => (why.needsPerson ? 'no agent can take it until the operator acts' : 'it waits its turn for an agent'),
  agentOfOtherProvider: (agentId) => unknownAgent(agentId),
};

export function profileNamed(name: ProfileName): Profile {
  return name === 'hosted' ? hostedProfile : personalProfile;
}
