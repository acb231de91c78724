/**
 * A device in a process of its own, to be killed: registers on the database at argv[2] under
 * the id argv[3], with the default lease, dispatches one new job to a made-up agent, prints
 * `dispatched <job id>` and then beats until it is killed (it never finishes the job).
 * Run from dist/ (test/store/pg-devices.test.ts, bench/failover.ts).
 */
import { systemClock } from '../../main/core/clock.js';
import { randomIds } from '../../main/core/ids.js';
import { connect } from '../../main/storage/postgres/connect.js';
import { Device } from '../../main/storage/postgres/devices.js';
import { PgJobStore } from '../../main/storage/postgres/job-store.js';
import { newJob } from './new-job.js';

const [url, id] = process.argv.slice(2);
if (!url || !id) throw new Error('usage: pg-device-process.js DATABASE_URL DEVICE_ID');

const pool = await connect(url);
const store = new PgJobStore(pool, id);
const device = new Device(pool, store, { name: id, baseUrl: null }, systemClock, (error) => console.error(error.message));
await device.start();
const now = systemClock.now();
const submitted = await store.submit({
  job: newJob({ id: randomIds.job(now), created_at: now }),
  queuedLimit: 1_000,
});
if (submitted.kind !== 'created') throw new Error(`not created: ${submitted.kind}`);
const [job] = await store.dispatch([{ jobId: submitted.job.id, agentId: `agt_${id}`, provider: 'chatgpt' }], systemClock.now());
console.log(`dispatched ${job!.id}`);
// The clock's timers do not hold the process open (they are unref'd): this does, until the kill.
setInterval(() => {}, 1 << 30);
