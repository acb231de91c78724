import { describe, expect, it } from 'vitest';
import { QueueOrder, roundRobinByAccount } from '../../main/queue/queue-order.js';

describe('queue order', () => {
  it('orders by priority, then age, then id, and says each job its place', () => {
    const jobs = [
      { id: 'job_b', priority: 0, created_at: 10 },
      { id: 'job_a', priority: 0, created_at: 10 },
      { id: 'job_c', priority: 5, created_at: 30 },
      { id: 'job_d', priority: -1, created_at: 1 },
      { id: 'job_e', priority: 0, created_at: 5 },
    ];
    const order = new QueueOrder(jobs.slice(0, 3));
    order.add(jobs[3]!);
    order.add(jobs[4]!);
    expect(order.size).toBe(5);
    expect(['job_c', 'job_e', 'job_a', 'job_b', 'job_d'].map((id) => order.position(jobs.find((j) => j.id === id)!))).toEqual([1, 2, 3, 4, 5]);
    order.remove(jobs[2]!); // job_c dispatched
    expect(order.position(jobs[4]!)).toBe(1);
    expect(order.size).toBe(4);
    order.remove(jobs[2]!); // removing what is not there changes nothing
    expect(order.size).toBe(4);
  });

  it('agrees with a full sort over many random jobs', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const jobs = Array.from({ length: 500 }, (_, i) => ({ id: `job_${i}`, priority: Math.floor(rand() * 5) - 2, created_at: Math.floor(rand() * 50) }));
    const order = new QueueOrder([]);
    for (const j of jobs) order.add(j);
    const sorted = [...jobs].sort((a, b) => b.priority - a.priority || a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
    sorted.forEach((j, i) => expect(order.position(j)).toBe(i + 1));
  });
});

describe('round robin between accounts', () => {
  const job = (id: string, account_id: string | null) => ({ id, account_id });
  const ids = (jobs: { id: string }[]) => jobs.map((j) => j.id);

  it('deals the accounts in turn, each in its own order, starting after the one served last', () => {
    const queue = [job('a1', 'acct_a'), job('a2', 'acct_a'), job('a3', 'acct_a'), job('c1', 'acct_c'), job('b1', 'acct_b'), job('c2', 'acct_c')];
    expect(ids(roundRobinByAccount(queue, undefined))).toEqual(['a1', 'b1', 'c1', 'a2', 'c2', 'a3']);
    expect(ids(roundRobinByAccount(queue, 'acct_a'))).toEqual(['b1', 'c1', 'a1', 'c2', 'a2', 'a3']);
    expect(ids(roundRobinByAccount(queue, 'acct_c'))).toEqual(['a1', 'b1', 'c1', 'a2', 'c2', 'a3']);
    // An account served last that has nothing queued any more: the next one after it.
    expect(ids(roundRobinByAccount(queue, 'acct_bb'))).toEqual(['c1', 'a1', 'b1', 'c2', 'a2', 'a3']);
  });

  it('leaves one account’s order as it is (Profile F)', () => {
    const queue = [job('x', null), job('y', null), job('z', null)];
    expect(roundRobinByAccount(queue, null)).toBe(queue);
  });
});
