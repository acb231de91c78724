import type { FastifyInstance } from 'fastify';
import type { BundleFile } from '../../diagnostics/bundles.js';
import { DiagnosticFileParams, JobDetail, JobList, JobsQuery, type JobSummary } from '../../contract/admin/jobs.js';
import { IdParams, NO_CONTENT, ok } from '../../contract/admin/shared.js';

/** What these routes ask of the application layer (main/service/admin/jobs.ts). */
export interface JobsPort {
  recent(limit: number): Promise<JobSummary[]>;
  detail(id: string): Promise<JobDetail>;
  diagnosticFile(bundle: string, file: string): Promise<BundleFile>;
  delete(id: string): Promise<void>;
  cancel(id: string): Promise<JobDetail>;
}

/** /admin/v1/jobs and /admin/v1/diagnostics: every account's jobs, one in full, cancelled, deleted; its diagnostic files. */
export async function jobRoutes(app: FastifyInstance, { jobs }: { jobs: JobsPort }): Promise<void> {
  app.get<{ Querystring: { limit?: string } }>(
    '/jobs',
    { schema: { summary: 'Recent jobs, newest first', querystring: JobsQuery, response: ok(JobList) } },
    async (request) => ({ jobs: await jobs.recent(Number(request.query.limit ?? 50)) }),
  );

  app.get<{ Params: { id: string } }>(
    '/jobs/:id',
    { schema: { summary: 'A job with its prompt, attempts and webhook', params: IdParams, response: ok(JobDetail) } },
    async (request) => jobs.detail(request.params.id),
  );

  app.get<{ Params: { bundle: string; file: string } }>(
    '/diagnostics/:bundle/:file',
    {
      schema: {
        summary: "One file of a failed attempt's diagnostic bundle (screenshot.png, page.html or failure.json), as a download",
        params: DiagnosticFileParams,
      },
    },
    async (request, reply) => {
      const { bundle, file } = request.params;
      const { data, contentType } = await jobs.diagnosticFile(bundle, file);
      return reply
        .header('content-type', contentType)
        .header('content-disposition', `attachment; filename="${bundle}-${file}"`)
        .header('cache-control', 'no-store')
        .send(data);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/jobs/:id',
    {
      schema: {
        summary: 'Delete a finished job, its attempts and webhook log (409 while queued or running: cancel it first)',
        params: IdParams,
        response: NO_CONTENT,
      },
    },
    async (request, reply) => {
      await jobs.delete(request.params.id);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string } }>(
    '/jobs/:id/cancel',
    { schema: { summary: 'Cancel a job (a waiting caller gets 499)', params: IdParams, response: ok(JobDetail) } },
    async (request) => jobs.cancel(request.params.id),
  );
}
