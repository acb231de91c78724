/**
 * The one schema of a selector pack (packs/<provider>.json) and of a user's override
 * (`<data dir>/sites/<provider>.json`), and their checks beyond shape: regular expressions
 * that compile, vocabulary words that exist. `compileSite` turns a checked pack into the
 * ProviderSite the flow drives.
 */
import safeRegex from 'safe-regex2';
import { Type, type Static, type TOptional } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { PROVIDERS } from '../../main/core/providers.js';
import { CueList } from './cue-schema.js';
import { REQUIRED_ROLES, ROLES, type ProviderSite, type Role } from './site.js';
import { isUiWord, uiWordPattern } from './ui-words.js';
import { compileVariants, mergeVariants, variantProblems, VariantsOverrideSchema, VariantsSchema } from './variant-pack.js';
import type { Cue, PageCue } from './cues.js';

const RoleLists = Type.Object(Object.fromEntries(ROLES.map((r) => [r, Type.Optional(CueList)])) as Record<Role, TOptional<typeof CueList>>, {
  additionalProperties: false,
});

/** What may differ between a pack and a user's override of it, besides roles. */
const SiteFields = {
  version: Type.Integer({ minimum: 1 }),
  checked: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'When the cues were last held against the live site' }),
  newChatPath: Type.String({ pattern: '^/' }),
  conversationPath: Type.String({ minLength: 1, description: 'Regex source, tested on the pathname' }),
  loginUrl: Type.String({ minLength: 1, description: 'Regex source, tested on the full URL' }),
  loginUrlPath: Type.String({ pattern: '^/' }),
  input: Type.Union([Type.Literal('paste'), Type.Literal('fill')]),
  limitReset: Type.Union([Type.Literal('clock'), Type.Literal('claude'), Type.Literal('none')]),
  turnScope: Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })], {
    description: 'Selectors for the element around a turn that holds its roles, tried in order (site.ts)',
  }),
};

export const SitePackSchema = Type.Object(
  {
    provider: Type.Union(PROVIDERS.map((p) => Type.Literal(p))),
    name: Type.String({ minLength: 1 }),
    baseUrl: Type.String({ pattern: '^https://' }),
    about: Type.Optional(Type.Array(Type.String(), { description: 'Notes on the whole pack for the next engineer' })),
    ...SiteFields,
    turnScope: Type.Optional(SiteFields.turnScope),
    roles: RoleLists,
    variants: Type.Optional(VariantsSchema),
  },
  { additionalProperties: false },
);
export type SitePack = Static<typeof SitePackSchema>;

/** An override names only what it changes; each role it names replaces the pack's list for that role. */
export const SiteOverrideSchema = Type.Object(
  {
    about: Type.Optional(Type.Array(Type.String())),
    version: Type.Optional(SiteFields.version),
    checked: Type.Optional(SiteFields.checked),
    newChatPath: Type.Optional(SiteFields.newChatPath),
    conversationPath: Type.Optional(SiteFields.conversationPath),
    loginUrl: Type.Optional(SiteFields.loginUrl),
    loginUrlPath: Type.Optional(SiteFields.loginUrlPath),
    input: Type.Optional(SiteFields.input),
    limitReset: Type.Optional(SiteFields.limitReset),
    turnScope: Type.Optional(SiteFields.turnScope),
    roles: Type.Optional(RoleLists),
    variants: Type.Optional(VariantsOverrideSchema),
  },
  { additionalProperties: false },
);
export type SiteOverride = Static<typeof SiteOverrideSchema>;

/** Thrown with every problem of a pack or an override, each naming where it is. */
export class InvalidPack extends Error {}

/** Checks a built-in pack; returns it typed, or throws InvalidPack listing every problem. */
export function checkPack(value: unknown, where: string): SitePack {
  const problems = shapeProblems(SitePackSchema, value);
  if (problems.length === 0) {
    const pack = value as SitePack;
    for (const role of REQUIRED_ROLES) if (!pack.roles[role]) problems.push(`/roles/${role}: missing`);
    problems.push(...contentProblems(pack, false));
  }
  if (problems.length > 0) throw new InvalidPack(`${where}: ${problems.join('; ')}`);
  return value as SitePack;
}

/** Checks a user's override; returns it typed, or throws InvalidPack listing every problem. */
export function checkOverride(value: unknown, where: string): SiteOverride {
  const problems = shapeProblems(SiteOverrideSchema, value);
  if (problems.length === 0) problems.push(...contentProblems(value as SiteOverride, true));
  if (problems.length > 0) throw new InvalidPack(`${where}: ${problems.join('; ')}`);
  return value as SiteOverride;
}

/** The pack with the override merged over it, role by role. */
export function mergeOverride(pack: SitePack, override: SiteOverride): SitePack {
  const { roles, variants, about: _about, ...fields } = override;
  const merged: SitePack = { ...pack, ...fields, roles: { ...pack.roles, ...roles } };
  const mergedVariants = mergeVariants(pack.variants, variants);
  return mergedVariants ? { ...merged, variants: mergedVariants } : merged;
}

/** A checked pack as the flow drives it. */
export function compileSite(pack: SitePack, override: string | null = null): ProviderSite {
  const roles = pack.roles as Partial<Record<Role, Cue[]>>;
  const page = Object.fromEntries(Object.entries(roles).map(([role, cues]) => [role, cues.map(pageCue)]));
  return {
    provider: pack.provider,
    name: pack.name,
    version: pack.version,
    checked: pack.checked,
    override,
    baseUrl: pack.baseUrl,
    newChatPath: pack.newChatPath,
    conversationPath: new RegExp(pack.conversationPath),
    loginUrl: new RegExp(pack.loginUrl),
    loginUrlPath: pack.loginUrlPath,
    input: pack.input,
    turnScope: typeof pack.turnScope === 'string' ? [pack.turnScope] : (pack.turnScope ?? []),
    roles,
    page: pack.variants?.thinking ? { ...page, thinking: pack.variants.thinking.map(pageCue) } : page,
    limitReset: pack.limitReset,
    variants: compileVariants(pack.variants, pageCue),
  };
}

function pageCue(cue: Cue): PageCue {
  return {
    kind: cue.kind,
    css: cue.css,
    ...(cue.text ? { text: regexLiteral(cue.text) } : {}),
    ...(cue.name ? { name: cue.name.startsWith('@') ? ([uiWordPattern(cue.name.slice(1) as never), 'iu'] as const) : regexLiteral(cue.name) } : {}),
  };
}

/** "/source/flags" → [source, flags]. */
function regexLiteral(literal: string): readonly [string, string] {
  const m = /^\/(.+)\/([a-z]*)$/s.exec(literal)!;
  return [m[1]!, m[2]!];
}

function shapeProblems(schema: Parameters<typeof Value.Errors>[0], value: unknown): string[] {
  return [...Value.Errors(schema, value)].slice(0, 10).map((e) => `${e.path || '/'}: ${e.message}`);
}

/**
 * What a schema cannot say: regular expressions that compile (and, in a user's `untrusted`
 * override, cannot backtrack catastrophically), vocabulary words that exist.
 */
function contentProblems(pack: SiteOverride, untrusted: boolean): string[] {
  const problems: string[] = [];
  const compiles = (path: string, source: string, flags = '') => {
    try {
      new RegExp(source, flags);
    } catch (error) {
      problems.push(`${path}: ${(error as Error).message}`);
      return;
    }
    // A nested repetition such as (a+)+ can take exponential time on a near-miss: a user's
    // pattern that could hang the service or the page on one long title is refused where it
    // loads. (safe-regex2 counts `?` as a repetition too, so the reviewed built-in packs'
    // `(?:/g/[^/]+)?` would be refused: they are not checked.)
    if (untrusted && !safeRegex(source)) problems.push(`${path}: the pattern can backtrack catastrophically (a repetition inside a repetition, or too many of them)`);
  };
  if (pack.conversationPath !== undefined) compiles('/conversationPath', pack.conversationPath);
  if (pack.loginUrl !== undefined) compiles('/loginUrl', pack.loginUrl);
  const cueLists: [string, Cue[]][] = [
    ...Object.entries(pack.roles ?? {}).map(([role, cues]): [string, Cue[]] => [`/roles/${role}`, cues as Cue[]]),
    ...(['picker', 'thinking'] as const).map((field): [string, Cue[]] => [`/variants/${field}`, (pack.variants?.[field] ?? []) as Cue[]]),
  ];
  for (const [path, cues] of cueLists) {
    cues.forEach((cue, i) => {
      for (const field of ['text', 'name'] as const) {
        const literal = cue[field];
        if (!literal) continue;
        if (literal.startsWith('@')) {
          if (!isUiWord(literal.slice(1))) problems.push(`${path}/${i}/${field}: no word ${literal} in ui-words.ts`);
        } else {
          compiles(`${path}/${i}/${field}`, ...regexLiteral(literal));
        }
      }
    });
  }
  if (pack.variants) problems.push(...variantProblems(pack.variants, !untrusted, compiles));
  return problems;
}
