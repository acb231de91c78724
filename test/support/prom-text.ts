/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for tests: it throws
 * on anything a scraper could misread rather than skipping it. Every sample must belong
 * to a family declared by `# TYPE` before it (histograms and summaries own their
 * `_bucket`, `_sum` and `_count` series), names and label names must be valid, label
 * values properly escaped, values numbers, and no series may appear twice.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export function parsePrometheusText(text: string): Map<string, Family> {
  if (text !== '' && !text.endsWith('\n')) throw new Error('the exposition must end with a newline');
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  const lines = text.split('\n').slice(0, -1);
  lines.forEach((line, i) => {
    const where = `line ${i + 1}: ${line}`;
    if (line === '') return; // the format allows empty lines (other exporters put one between families)
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) {
        if (/^# (HELP|TYPE)\b/.test(line)) throw new Error(`malformed ${where}`);
        return; // a comment
      }
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!NAME.test(name)) throw new Error(`bad metric name, ${where}`);
      const family = families.get(name) ?? { type: 'untyped' as const, help: '', samples: [] };
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`unknown type, ${where}`);
        if (families.has(name) && families.get(name)!.samples.length > 0) throw new Error(`TYPE after samples, ${where}`);
        family.type = rest as Family['type'];
      } else {
        family.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      }
      families.set(name, family);
      return;
    }
    const sample = parseSample(line, where);
    const family = familyOf(families, sample.name);
    if (!family) throw new Error(`sample without a # TYPE before it, ${where}`);
    const key = `${sample.name}{${Object.entries(sample.labels).sort().map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`;
    if (seen.has(key)) throw new Error(`series twice, ${where}`);
    seen.add(key);
    family.samples.push(sample);
  });
  return families;
}

function familyOf(families: Map<string, Family>, sampleName: string): Family | undefined {
  const exact = families.get(sampleName);
  if (exact) return exact;
  const m = /^(.*)_(bucket|sum|count)$/.exec(sampleName);
  const base = m && families.get(m[1]!);
  return base && (base.type === 'histogram' || (base.type === 'summary' && m![2] !== 'bucket')) ? base : undefined;
}

function parseSample(line: string, where: string): Sample {
  const nameEnd = line.search(/[{ ]/);
  if (nameEnd <= 0) throw new Error(`no value, ${where}`);
  const name = line.slice(0, nameEnd);
  if (!NAME.test(name)) throw new Error(`bad metric name, ${where}`);
  const labels: Record<string, string> = {};
  let i = nameEnd;
  if (line[i] === '{') {
    i++;
    while (line[i] !== '}') {
      const eq = line.indexOf('="', i);
      if (eq < 0) throw new Error(`bad label, ${where}`);
      const label = line.slice(i, eq);
      if (!LABEL.test(label) || label in labels) throw new Error(`bad or repeated label "${label}", ${where}`);
      let value = '';
      let j = eq + 2;
      for (;;) {
        const c = line[j];
        if (c === undefined) throw new Error(`unterminated label value, ${where}`);
        if (c === '"') break;
        if (c === '\\') {
          const next = line[j + 1];
          if (next === 'n') value += '\n';
          else if (next === '\\' || next === '"') value += next;
          else throw new Error(`bad escape, ${where}`);
          j += 2;
        } else {
          value += c;
          j++;
        }
      }
      labels[label] = value;
      i = j + 1;
      if (line[i] === ',') i++;
      else if (line[i] !== '}') throw new Error(`expected , or }, ${where}`);
    }
    i++;
  }
  const parts = line.slice(i).split(' ');
  if (parts[0] !== '' || parts.length < 2 || parts.length > 3) throw new Error(`expected " value [timestamp]", ${where}`);
  const text = parts[1]!;
  const value = text === '+Inf' ? Infinity : text === '-Inf' ? -Infinity : text === 'NaN' ? NaN : Number(text);
  if (text === '' || (Number.isNaN(value) && text !== 'NaN')) throw new Error(`bad value, ${where}`);
  if (parts[2] !== undefined && !/^-?\d+$/.test(parts[2])) throw new Error(`bad timestamp, ${where}`);
  return { name, labels, value };
}

/** The value of the one sample of `name` with exactly these label values (others may be present), or undefined. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const family = familyOf(families, name);
  const matches = family?.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) ?? [];
  if (matches.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${matches.length} series`);
  return matches[0]?.value;
}
