import { describe, expect, it } from 'vitest';
import { JOB_STATUSES } from '../../main/core/jobs.js';
import { IllegalTransition, isFinal, transition, type JobEvent } from '../../main/queue/state-machine.js';

const EVENTS: JobEvent[] = ['dispatch', 'succeed', 'retry', 'fail', 'cancel', 'expire'];

describe('job state machine', () => {
  it('allows exactly the transitions of the contract', () => {
    const allowed: string[] = [];
    for (const from of JOB_STATUSES) {
      for (const event of EVENTS) {
        try {
          allowed.push(`${from} -${event}-> ${transition(from, event)}`);
        } catch (error) {
          expect(error).toBeInstanceOf(IllegalTransition);
        }
      }
    }
    expect(allowed.sort()).toEqual(
      [
        'queued -dispatch-> dispatched',
        'queued -cancel-> cancelled',
        'queued -expire-> expired',
        'dispatched -succeed-> succeeded',
        'dispatched -retry-> queued',
        'dispatched -fail-> failed',
        'dispatched -cancel-> cancelled',
        'dispatched -expire-> expired',
      ].sort(),
    );
  });

  it('knows the four final states', () => {
    expect(JOB_STATUSES.filter(isFinal)).toEqual(['succeeded', 'failed', 'cancelled', 'expired']);
  });
});
