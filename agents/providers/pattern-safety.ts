/**
 * Whether a user's regular expression runs in time linear in the text at each place a
 * backtracking engine (V8's, in the service and in the provider's page alike) tries it. Such
 * an engine tries every way the pattern can match the text before it gives up on a place,
 * so a pattern that can match one stretch of text in many ways (`(a|a)*$`: two ways per
 * character, 2^29 for 29 of them; `\s*\s*$`: n ways for n spaces) takes exponential or
 * polynomial time on a near-miss. This decides it exactly enough to refuse every such
 * pattern, by the ambiguity of the pattern's position automaton (Weideman, van der Merwe,
 * Berglund, Watson, "Analyzing matching time behavior of backtracking regular expression
 * matchers by using ambiguity of NFA", 2016): none that can match a text two ways from one
 * state back to it (exponential), and no two states with a loop each that can both be left
 * in the same way (polynomial). The positions are the pattern's atoms; a repetition of two
 * or more counts as a loop (`{2,40}` as `+`: its bound caps the time, but at a power of its
 * size). What cannot be judged so is refused: backreferences, lookarounds, and repetitions
 * or alternatives that can match nothing in two ways (`(a*)*`, `(a?|b?)`). A pure check in
 * Node, at load: the page runs only what passed.
 */
import { parsePattern, Unbounded, type PatternNode } from './pattern-parse.js';

/** Longer sources are refused: the check's own time grows with the pattern. */
const MAX_SOURCE = 1_000;
/** Atoms of one pattern, at most. */
const MAX_ATOMS = 300;

/**
 * Why `source` with `flags` could take more than linear time at a place of the text on a
 * backtracking engine, in words; null when it cannot. `source` must compile.
 */
export function superLinear(source: string, flags: string): string | null {
  if (source.length > MAX_SOURCE) return `it is longer than ${MAX_SOURCE} characters`;
  if (/[^dgimsuy]/.test(flags)) return `the flag${flags.replace(/[dgimsuy]/g, '').length > 1 ? 's' : ''} ${flags.replace(/[dgimsuy]/g, '')} (use i, m, s, u)`;
  try {
    const automaton = new Automaton(parsePattern(source, flags.includes('u')), flags.replace(/[^isu]/g, ''));
    return automaton.ambiguity();
  } catch (error) {
    if (error instanceof Unbounded) return `it uses ${error.message}, which cannot be bounded`;
    throw error;
  }
}

/** A repetition or an alternative that can match nothing more than one way: the check cannot count its ways. */
function nothingTwoWays(what: string): Unbounded {
  return new Unbounded(what);
}

interface Built {
  nullable: boolean;
  first: number[];
  last: number[];
}

/**
 * The pattern's position (Glushkov) automaton: a state per atom; from each, the atoms that
 * may match next, with how many ways the pattern leads there (a nested repetition leads
 * from its last atom back to its first both by the inner loop and by the outer one).
 */
class Automaton {
  private readonly atoms: { raw: string; char?: string }[] = [];
  private readonly follow: Map<number, number>[] = [];
  private readonly sets: AtomSets;

  constructor(root: PatternNode, flags: string) {
    this.sets = new AtomSets(flags);
    this.build(root);
  }

  /** The reason this automaton is ambiguous enough to take more than linear time, or null. */
  ambiguity(): string | null {
    const components = stronglyConnected(this.atoms.length, (p) => [...this.follow[p]!.keys()]);
    const loops = components.filter((c) => c.length > 1 || this.follow[c[0]!]!.has(c[0]!));
    for (const loop of loops) {
      if (this.twoWaysAround(loop)) return 'a repetition that can match the same text in two ways ((a|a)*, (a+)+, (\\w+\\s?)*): exponential time on a near-miss';
    }
    for (const from of loops) {
      for (const to of loops) {
        if (from !== to && this.leftAlike(from, to)) {
          return 'two repetitions that can take the same text one after the other (\\s*\\s*, \\w+\\d+, .*x.*): polynomial time on a near-miss';
        }
      }
    }
    return null;
  }

  /** Positions, first, last, nullable of `node`, adding its follow links. */
  private build(node: PatternNode): Built {
    switch (node.kind) {
      case 'nothing':
        return { nullable: true, first: [], last: [] };
      case 'atom': {
        const p = this.atoms.push(node) - 1;
        if (p >= MAX_ATOMS) throw new Unbounded(`more than ${MAX_ATOMS} characters and classes`);
        this.follow.push(new Map());
        return { nullable: false, first: [p], last: [p] };
      }
      case 'seq':
        return node.items.map((item) => this.build(item)).reduce((a, b) => {
          this.link(a.last, b.first);
          return { nullable: a.nullable && b.nullable, first: a.nullable ? [...a.first, ...b.first] : a.first, last: b.nullable ? [...a.last, ...b.last] : b.last };
        });
      case 'alt': {
        const options = node.options.map((o) => this.build(o));
        if (options.filter((o) => o.nullable).length > 1) throw nothingTwoWays('an alternation with two branches that can match nothing');
        return { nullable: options.some((o) => o.nullable), first: options.flatMap((o) => o.first), last: options.flatMap((o) => o.last) };
      }
      case 'repeat': {
        if (node.max === 0) return { nullable: true, first: [], last: [] };
        const body = this.build(node.body);
        if (body.nullable) throw nothingTwoWays('a repetition of something that can match nothing ((a*)*, (a?)+)');
        if (node.max > 1) this.link(body.last, body.first);
        return { nullable: node.min === 0, first: body.first, last: body.last };
      }
    }
  }

  private link(from: number[], to: number[]): void {
    for (const p of from) for (const q of to) this.follow[p]!.set(q, (this.follow[p]!.get(q) ?? 0) + 1);
  }

  private next(p: number, within?: ReadonlySet<number>): number[] {
    return [...this.follow[p]!.keys()].filter((q) => !within || within.has(q));
  }

  /**
   * Whether some state of `loop` can go around back to itself in two ways on the same text:
   * a link taken two ways, or, in the product of the loop with itself (both runs reading the
   * same characters), a pair of different states in one cycle with a pair of equal ones.
   */
  private twoWaysAround(loop: number[]): boolean {
    const inLoop = new Set(loop);
    if (loop.some((p) => this.next(p, inLoop).some((q) => this.follow[p]!.get(q)! > 1))) return true;
    const n = this.atoms.length;
    const pairs = stronglyConnected(n * n, (pq) => {
      const [p, q] = [Math.floor(pq / n), pq % n];
      if (!inLoop.has(p) || !inLoop.has(q)) return [];
      return this.next(p, inLoop).flatMap((p2) => this.next(q, inLoop).filter((q2) => this.sets.overlap(this.atoms[p2]!, this.atoms[q2]!)).map((q2) => p2 * n + q2));
    });
    return pairs.some((c) => c.length > 1 && c.some((pq) => Math.floor(pq / n) === pq % n) && c.some((pq) => Math.floor(pq / n) !== pq % n));
  }

  /**
   * Whether some state p of loop `from` and q of loop `to` can each go around, and p lead to
   * q, all three on the same text: three runs in step from (p, p, q) reach (p, q, q).
   */
  private leftAlike(from: number[], to: number[]): boolean {
    const [inFrom, inTo] = [new Set(from), new Set(to)];
    const n = this.atoms.length;
    for (const p of from) {
      for (const q of to) {
        const seen = new Set<number>();
        let frontier = [(p * n + p) * n + q];
        while (frontier.length > 0) {
          const step: number[] = [];
          for (const xyz of frontier) {
            const [x, y, z] = [Math.floor(xyz / (n * n)), Math.floor(xyz / n) % n, xyz % n];
            for (const x2 of this.next(x, inFrom)) {
              for (const y2 of this.next(y).filter((y2) => this.sets.overlap(this.atoms[x2]!, this.atoms[y2]!))) {
                for (const z2 of this.next(z, inTo).filter((z2) => this.sets.overlap(this.atoms[x2]!, this.atoms[z2]!) && this.sets.overlap(this.atoms[y2]!, this.atoms[z2]!))) {
                  const next = (x2 * n + y2) * n + z2;
                  if (x2 === p && y2 === q && z2 === q) return true;
                  if (!seen.has(next)) {
                    seen.add(next);
                    step.push(next);
                  }
                }
              }
            }
          }
          frontier = step;
        }
      }
    }
    return false;
  }
}

/**
 * Whether two atoms can match one same character, under the pattern's flags: a character
 * atom is tested by the other's native RegExp (with `i`, both are closed under case folding,
 * so one of its forms is enough); two classes by every character of the Basic Multilingual
 * Plane, and with `u` the planes above it too.
 */
class AtomSets {
  private readonly matchers = new Map<string, RegExp>();
  private readonly members = new Map<string, Uint8Array>();

  constructor(private readonly flags: string) {}

  overlap(a: { raw: string; char?: string }, b: { raw: string; char?: string }): boolean {
    if (a.char !== undefined) return this.matcher(b.raw).test(a.char);
    if (b.char !== undefined) return this.matcher(a.raw).test(b.char);
    // The same class: it overlaps itself (an empty one, [], is taken to as well: a refusal too many at worst).
    if (a.raw === b.raw) return true;
    const [ma, mb] = [this.membersOf(a.raw), this.membersOf(b.raw)];
    for (let i = 0; i < ma.length; i++) if (ma[i]! & mb[i]!) return true;
    return false;
  }

  private matcher(raw: string): RegExp {
    let re = this.matchers.get(raw);
    if (!re) this.matchers.set(raw, (re = new RegExp(`^(?:${raw})$`, this.flags)));
    return re;
  }

  /** Which characters the class matches, a bit each. */
  private membersOf(raw: string): Uint8Array {
    let bits = this.members.get(raw);
    if (bits) return bits;
    const re = this.matcher(raw);
    const top = this.flags.includes('u') ? 0x110000 : 0x10000;
    bits = new Uint8Array(top >> 3);
    for (let c = 0; c < top; c++) if (re.test(String.fromCodePoint(c))) bits[c >> 3]! |= 1 << (c & 7);
    this.members.set(raw, bits);
    return bits;
  }
}

/** Tarjan's strongly connected components of the graph on 0..n-1 (iterative: a pattern's product graph can be deep). */
function stronglyConnected(n: number, edges: (v: number) => number[]): number[][] {
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    const work: [number, number[], number][] = [[root, edges(root), 0]];
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (work.length > 0) {
      const frame = work.at(-1)!;
      const [v, out] = frame;
      if (frame[2] < out.length) {
        const w = out[frame[2]++]!;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          work.push([w, edges(w), 0]);
        } else if (onStack[w]) {
          low[v] = Math.min(low[v]!, index[w]!);
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work.at(-1)![0];
        low[parent] = Math.min(low[parent]!, low[v]!);
      }
      if (low[v] === index[v]) {
        const component: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          component.push(w);
        } while (w !== v);
        components.push(component);
      }
    }
  }
  return components;
}
