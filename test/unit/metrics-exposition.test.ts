/**
 * The Prometheus text the service writes (main/metrics/exposition.ts), read back with the
 * tests' strict parser: escaping, counters with and without labels, cumulative histogram
 * buckets, and gauges that show only what their last collect set.
 */
import { describe, expect, it } from 'vitest';
import { Counter, Gauge, Histogram, Registry } from '../../main/metrics/exposition.js';
import { parsePrometheusText, sampleValue } from '../support/prom-text.js';

describe('the Prometheus exposition', () => {
  it('escapes help and label values, so a scraper reads back exactly what was counted', async () => {
    const registry = new Registry();
    const odd = 'a "quoted" back\\slash\nand a new line';
    const counter = new Counter({ name: 'odd_total', help: 'Help with a back\\slash\nand a new line', labelNames: ['what'], registry });
    counter.inc({ what: odd });
    counter.inc({ what: odd });
    const families = parsePrometheusText(await registry.text());
    expect(families.get('odd_total')).toMatchObject({ type: 'counter', help: 'Help with a back\\slash\nand a new line' });
    expect(sampleValue(families, 'odd_total', { what: odd })).toBe(2);
  });

  it('shows a counter without labels from zero, and one with labels only once counted', async () => {
    const registry = new Registry();
    const plain = new Counter({ name: 'plain_total', help: 'Plain.', registry });
    const labelled = new Counter({ name: 'labelled_total', help: 'Labelled.', labelNames: ['provider', 'status'], registry });
    let families = parsePrometheusText(await registry.text());
    expect(sampleValue(families, 'plain_total')).toBe(0);
    expect(families.get('labelled_total')!.samples).toEqual([]);
    plain.inc();
    labelled.inc({ provider: 'claude', status: 'failed' });
    labelled.inc({ provider: 'chatgpt', status: 'succeeded' });
    labelled.inc({ provider: 'claude', status: 'failed' });
    families = parsePrometheusText(await registry.text());
    expect(sampleValue(families, 'plain_total')).toBe(1);
    expect(families.get('labelled_total')!.samples.map((s) => [s.labels, s.value])).toEqual([
      [{ provider: 'claude', status: 'failed' }, 2],
      [{ provider: 'chatgpt', status: 'succeeded' }, 1],
    ]);
  });

  it('counts a histogram into cumulative buckets, with the sum and the count per series', async () => {
    const registry = new Registry();
    const histogram = new Histogram({ name: 'run_seconds', help: 'Run.', labelNames: ['provider'], buckets: [5, 0.5, 1], registry });
    for (const seconds of [0.2, 0.5, 0.7, 3, 40]) histogram.observe({ provider: 'gemini' }, seconds);
    histogram.observe({ provider: 'qwen' }, 1);
    const families = parsePrometheusText(await registry.text());
    expect(families.get('run_seconds')!.type).toBe('histogram');
    const bucket = (provider: string, le: string) => sampleValue(families, 'run_seconds_bucket', { provider, le });
    expect(['0.5', '1', '5', '+Inf'].map((le) => bucket('gemini', le))).toEqual([2, 3, 4, 5]);
    expect(['0.5', '1', '5', '+Inf'].map((le) => bucket('qwen', le))).toEqual([0, 1, 1, 1]);
    expect(sampleValue(families, 'run_seconds_sum', { provider: 'gemini' })).toBeCloseTo(44.4);
    expect(sampleValue(families, 'run_seconds_count', { provider: 'gemini' })).toBe(5);
  });

  it('reads gauges at each scrape: a series the last collect did not set is gone', async () => {
    const registry = new Registry();
    let agents: [string, number][] = [['chatgpt', 2], ['claude', 1]];
    new Gauge({ name: 'depth', help: 'Depth.', registry, collect: async (set) => set(Infinity) });
    new Gauge({ name: 'agents', help: 'Agents.', labelNames: ['provider'], registry, collect: (set) => agents.forEach(([provider, n]) => set({ provider }, n)) });
    let families = parsePrometheusText(await registry.text());
    expect(sampleValue(families, 'depth')).toBe(Infinity);
    expect(families.get('agents')!.samples.map((s) => [s.labels.provider, s.value])).toEqual(agents);
    agents = [['claude', 3]];
    families = parsePrometheusText(await registry.text());
    expect(families.get('agents')!.samples.map((s) => [s.labels.provider, s.value])).toEqual([['claude', 3]]);
  });

  it('keeps two scrapes at once apart: each shows the series its own collect set', async () => {
    const registry = new Registry();
    let calls = 0;
    new Gauge({
      name: 'pair',
      help: 'Two series set across a wait.',
      labelNames: ['side'],
      registry,
      async collect(set) {
        const n = ++calls;
        set({ side: 'left' }, n);
        await new Promise((resolve) => setTimeout(resolve, 5));
        set({ side: 'right' }, n);
      },
    });
    const scrapes = await Promise.all([registry.text(), registry.text()]);
    expect(scrapes.map((text) => parsePrometheusText(text).get('pair')!.samples.map((s) => `${s.labels.side}=${s.value}`))).toEqual([
      ['left=1', 'right=1'],
      ['left=2', 'right=2'],
    ]);
  });
});
