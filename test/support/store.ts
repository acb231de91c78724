import type { JobRow, NewJob } from '../../main/core/jobs.js';
import type { JobStore } from '../../main/queue/job-store.js';
import type { NewAttachment } from '../../main/core/attachments.js';

/** Adds a queued job through the port, as an accepted submission does, with no queue limit (and its files, if any). */
export async function submit(store: JobStore, job: NewJob, attachments: readonly NewAttachment[] = []): Promise<JobRow> {
  const result = await store.submit({ job, attachments, queuedLimit: Number.MAX_SAFE_INTEGER });
  if (result.kind !== 'created') throw new Error(`job ${job.id} was not created: ${result.kind}`);
  return result.job;
}

/** The id of the newest job whose prompt passes `test`, among the newest `within` (of a store or a service driver); undefined when none does. */
export async function jobIdWhere(store: Pick<JobStore, 'recent'>, test: (prompt: string) => boolean, within = 100): Promise<string | undefined> {
  return (await store.recent(within)).find((j) => test(j.prompt))?.id;
}
