/**
 * The service's in-memory log: a bounded ring (the oldest entries fall off), filtering by
 * level, the injected clock, and listeners that hear each entry once until they stop.
 */
import { describe, expect, it } from 'vitest';
import { LogBook } from '../../main/logs/log-book.js';
import { ManualClock } from '../support/manual-clock.js';

describe('LogBook', () => {
  it('keeps only the newest entries, oldest first, numbered in order', () => {
    const log = new LogBook(new ManualClock(), 3);
    for (let i = 1; i <= 5; i++) log.info('service', `line ${i}`);
    expect(log.recent().map((e) => [e.seq, e.message])).toEqual([
      [3, 'line 3'],
      [4, 'line 4'],
      [5, 'line 5'],
    ]);
    expect(log.recent(2).map((e) => e.message)).toEqual(['line 4', 'line 5']);
    expect(new LogBook(new ManualClock(), 3).recent()).toEqual([]);
  });

  it('stamps entries with the injected clock', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 2, 3, 4, 5));
    const log = new LogBook(clock);
    log.info('service', 'first');
    clock.advance(1_500);
    log.warn('agent', 'second');
    expect(log.recent().map((e) => e.at)).toEqual([Date.UTC(2026, 0, 2, 3, 4, 5), Date.UTC(2026, 0, 2, 3, 4, 6, 500)]);
  });

  it('filters by the lowest level, counting the limit after the filter', () => {
    const log = new LogBook(new ManualClock(), 10);
    log.info('service', 'a');
    log.warn('job', 'b');
    log.info('agent', 'c');
    log.error('webhook', 'd');
    log.info('agent', 'e');
    expect(log.recent(10, { minLevel: 'warn' }).map((e) => [e.level, e.source, e.message])).toEqual([
      ['warn', 'job', 'b'],
      ['error', 'webhook', 'd'],
    ]);
    expect(log.recent(10, { minLevel: 'error' }).map((e) => e.message)).toEqual(['d']);
    expect(log.recent(1, { minLevel: 'warn' }).map((e) => e.message)).toEqual(['d']);
    expect(log.recent(10, { minLevel: 'info' })).toHaveLength(5);
  });

  it('tells subscribers of each new entry until they unsubscribe, even when another listener throws', () => {
    const log = new LogBook(new ManualClock());
    log.info('service', 'before');
    const heard: string[] = [];
    log.subscribe(() => {
      throw new Error('a closed stream');
    });
    const stop = log.subscribe((e) => heard.push(`${e.seq} ${e.level} ${e.message}`));
    log.warn('agent', 'one');
    log.error('job', 'two');
    stop();
    log.info('service', 'after');
    expect(heard).toEqual(['2 warn one', '3 error two']);
    expect(log.recent()).toHaveLength(4);
  });

  it('refuses a ring with no room', () => {
    expect(() => new LogBook(new ManualClock(), 0)).toThrow(RangeError);
  });
});
