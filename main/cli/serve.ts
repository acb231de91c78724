import { resolveDataDir } from '../core/data-dir.js';
import { Service } from '../service.js';
import { parse, parsePort } from './args.js';

export const SERVE_OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
} as const;

/** `chatbridge serve`: the service, headless, until SIGINT or SIGTERM. */
export async function serve(args: string[]): Promise<void> {
  const { values } = parse(args, SERVE_OPTIONS);
  const service = await Service.start({
    dataDir: resolveDataDir(values['data-dir']),
    host: values.host ?? '127.0.0.1',
    port: parsePort(values.port),
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`chatbridge: error while stopping: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.stdout.write(`listening on ${service.baseUrl}\n`);
}
