/**
 * The Prometheus text format (0.0.4) for GET /metrics: counters, histograms and gauges read
 * at scrape time, in a registry per service (several services may run in one process: the
 * tests). Written here rather than taken from prom-client, whose import (with
 * @opentelemetry/api and tdigest) was some 50 ms of CPU in every start of the service, for
 * the few families it serves.
 */

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type Labels<L extends string> = { readonly [K in L]: string };

interface Family {
  /** The family's sample lines, each ending in a newline. */
  samples(): string | Promise<string>;
  readonly head: string;
}

export class Registry {
  private readonly families: Family[] = [];

  add(family: Family): void {
    this.families.push(family);
  }

  /** The exposition: each family's HELP and TYPE, then its samples. */
  async text(): Promise<string> {
    const parts = await Promise.all(this.families.map(async (f) => f.head + (await f.samples())));
    return parts.join('');
  }
}

interface FamilyOptions<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  registry: Registry;
}

abstract class LabelledFamily<L extends string> implements Family {
  readonly head: string;
  protected readonly name: string;
  private readonly labelNames: readonly L[];

  constructor(type: 'counter' | 'gauge' | 'histogram', { name, help, labelNames = [], registry }: FamilyOptions<L>) {
    this.name = name;
    this.labelNames = labelNames;
    this.head = `# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${name} ${type}\n`;
    registry.add(this);
  }

  abstract samples(): string | Promise<string>;

  /** A series' labels as the exposition writes them (`{a="x",b="y"}`, or '' for none): its key in the family. */
  protected key(labels: Labels<L> | undefined): string {
    // Built by hand: the request counter makes one for every HTTP answer.
    let key = '';
    for (const name of this.labelNames) key += `${key === '' ? '{' : ','}${name}="${escapeLabel(labels![name])}"`;
    return key === '' ? '' : `${key}}`;
  }

  /** `name{labels} value` for each series, by key. */
  protected lines(series: Map<string, number>): string {
    let out = '';
    for (const [key, value] of series) out += `${this.name}${key} ${number(value)}\n`;
    return out;
  }
}

export class Counter<L extends string = never> extends LabelledFamily<L> {
  /** By key, in the order first counted. */
  private readonly series = new Map<string, number>();

  constructor(options: FamilyOptions<L>) {
    super('counter', options);
    // A counter without labels reads 0 from the start; one with labels has no series until counted.
    if (!options.labelNames?.length) this.series.set('', 0);
  }

  inc(...labels: [L] extends [never] ? [] : [Labels<L>]): void {
    const key = this.key(labels[0]);
    this.series.set(key, (this.series.get(key) ?? 0) + 1);
  }

  samples(): string {
    return this.lines(this.series);
  }
}

interface Observed {
  buckets: number[];
  sum: number;
  count: number;
}

export class Histogram<L extends string> extends LabelledFamily<L> {
  private readonly bounds: readonly number[];
  /** By key, in the order first observed. */
  private readonly series = new Map<string, Observed>();

  constructor(options: FamilyOptions<L> & { buckets: readonly number[] }) {
    super('histogram', options);
    this.bounds = [...options.buckets].sort((a, b) => a - b);
  }

  observe(labels: Labels<L>, value: number): void {
    const key = this.key(labels);
    let seen = this.series.get(key);
    if (!seen) this.series.set(key, (seen = { buckets: this.bounds.map(() => 0), sum: 0, count: 0 }));
    this.bounds.forEach((bound, i) => {
      if (value <= bound) seen.buckets[i]!++;
    });
    seen.sum += value;
    seen.count++;
  }

  samples(): string {
    let out = '';
    for (const [key, seen] of this.series) {
      // `le` joins the series' own labels: {le="0.1",provider="chatgpt"}.
      const withLe = (le: string) => `{le="${le}"${key === '' ? '}' : `,${key.slice(1)}`}`;
      this.bounds.forEach((bound, i) => (out += `${this.name}_bucket${withLe(number(bound))} ${seen.buckets[i]}\n`));
      out += `${this.name}_bucket${withLe('+Inf')} ${seen.count}\n`;
      out += `${this.name}_sum${key} ${number(seen.sum)}\n${this.name}_count${key} ${seen.count}\n`;
    }
    return out;
  }
}

/** A gauge read at each scrape: `collect` sets the series that exist now, and only those. */
export class Gauge<L extends string = never> extends LabelledFamily<L> {
  constructor(private readonly options: FamilyOptions<L> & { collect(set: (...args: [L] extends [never] ? [number] : [Labels<L>, number]) => void): void | Promise<void> }) {
    super('gauge', options);
  }

  async samples(): Promise<string> {
    // Each scrape's own: two scrapes at once never mix their series.
    const now = new Map<string, number>();
    await this.options.collect((...args: unknown[]) => {
      const [labels, value] = args.length === 1 ? [undefined, args[0] as number] : [args[0] as Labels<L>, args[1] as number];
      now.set(this.key(labels), value);
    });
    return this.lines(now);
  }
}

function escapeLabel(value: string): string {
  return /[\\"\n]/.test(value) ? value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : value;
}

function number(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  return String(value);
}
