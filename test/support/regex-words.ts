/**
 * The words a regular expression knows, one at a time: for each alternative of each
 * alternation in it (the whole pattern's included), the pattern with that alternation held
 * to that alternative. A text that one of them matches says that word; a set of texts that
 * leaves one unmatched misses a word of the pattern.
 */
export function eachWord(source: string): string[] {
  const groups = alternations(source);
  /** The alternatives of a group, as [start, end) of the source. */
  const choices = ({ from, to, splits }: Group) => [from, ...splits.map((s) => s + 1)].map((start, i) => [start, splits[i] ?? to] as const);
  const variants = groups.flatMap((group) =>
    group.splits.length === 0
      ? []
      : choices(group).map(([start, end]) => {
          // The groups around this one are held to the alternative this one is in.
          const around = groups.filter((g) => g !== group && g.splits.length > 0 && g.from <= group.from && group.to <= g.to);
          const holds: [Group, readonly [number, number]][] = [
            ...around.map((g): [Group, readonly [number, number]] => [g, choices(g).find(([s, e]) => s <= group.from && group.to <= e)!]),
            [group, [start, end]],
          ];
          const kept = (i: number) => holds.every(([g, [s, e]]) => i < g.from || i >= g.to || (i >= s && i < e));
          return Array.from(source, (c, i) => (kept(i) ? c : '')).join('');
        }),
  );
  return variants.length > 0 ? variants : [source];
}

interface Group {
  /** Where its content starts and ends (exclusive). */
  from: number;
  to: number;
  /** Where its `|`s are. */
  splits: number[];
}

/** Every group of the pattern, and the pattern as a whole. */
function alternations(source: string): Group[] {
  const found: Group[] = [];
  const open: { from: number; splits: number[] }[] = [{ from: 0, splits: [] }];
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      i++;
    } else if (c === '[') {
      // A character class: its `|` and `(` are plain characters.
      for (i++; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i++;
    } else if (c === '(') {
      const prefix = /^\(\?(?::|=|!|<=|<!|<[A-Za-z]\w*>)/.exec(source.slice(i))?.[0] ?? '(';
      open.push({ from: i + prefix.length, splits: [] });
      i += prefix.length - 1;
    } else if (c === ')') {
      const group = open.pop()!;
      found.push({ ...group, to: i });
    } else if (c === '|') {
      open.at(-1)!.splits.push(i);
    }
  }
  found.push({ ...open[0]!, to: source.length });
  return found;
}
