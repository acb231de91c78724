/**
 * The one schema of a selector pack (packs/<provider>.json) and of a user's override
 * (`<data dir>/sites/<provider>.json`), and their checks beyond shape: regular expressions
 * that compile, vocabulary words that exist. `compileSite` turns a checked pack into the
 * ProviderSite the flow drives.
 */
import { Type, type Static, type TOptional } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { PROVIDERS } from '../../main/core/providers.js';
import { CueList } from './cue-schema.js';
import { REQUIRED_ROLES, ROLES, type ProviderSite, type Role } from './site.js';
import { superLinear } from './pattern-safety.js';
import { isUiWord, uiWordPattern } from './ui-words.js';
import { boundedPattern, USER_TEXT_LIMIT } from './user-patterns.js';
import { attachmentCueLists, attachmentProblems, AttachmentsOverrideSchema, AttachmentsSchema, compileAttachments, mergeAttachments } from './attachment-pack.js';
import { compileVariants, mergeVariants, variantProblems, VariantsOverrideSchema, VariantsSchema } from './variant-pack.js';
import type { Cue, PageCue, PagePattern } from './cues.js';

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
    attachments: Type.Optional(AttachmentsSchema),
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
    attachments: Type.Optional(AttachmentsOverrideSchema),
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
    if (pack.attachments) problems.push(...attachmentProblems(pack.attachments));
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
  const { roles, variants, attachments, about: _about, ...fields } = override;
  const merged: SitePack = { ...pack, ...fields, roles: { ...pack.roles, ...roles } };
  const mergedVariants = mergeVariants(pack.variants, variants);
  const mergedAttachments = mergeAttachments(pack.attachments, attachments);
  return { ...merged, ...(mergedVariants ? { variants: mergedVariants } : {}), ...(mergedAttachments ? { attachments: mergedAttachments } : {}) };
}

/** A user's checked override, as it was merged into a pack: where it is, and what it says. */
export interface LoadedOverride {
  file: string;
  value: SiteOverride;
}

/**
 * A checked pack as the flow drives it. The patterns `override` brought in are a user's: each
 * reads at most USER_TEXT_LIMIT characters of a text (user-patterns.ts).
 */
export function compileSite(pack: SitePack, override: LoadedOverride | null = null): ProviderSite {
  const users = override?.value;
  const userCues = new Set<Cue>(
    [...Object.values(users?.roles ?? {}), users?.variants?.picker ?? [], users?.variants?.thinking ?? [], ...attachmentCueLists(users?.attachments).map(([, cues]) => cues)].flat() as Cue[],
  );
  const pageCue = (cue: Cue) => toPageCue(cue, userCues.has(cue));
  const address = (source: string, fromUser: boolean) => (fromUser ? boundedPattern(source) : new RegExp(source));
  const roles = pack.roles as Partial<Record<Role, Cue[]>>;
  const page = Object.fromEntries(Object.entries(roles).map(([role, cues]) => [role, cues.map(pageCue)]));
  const attaching = compileAttachments(pack.attachments, pageCue);
  return {
    provider: pack.provider,
    name: pack.name,
    version: pack.version,
    checked: pack.checked,
    override: override?.file ?? null,
    baseUrl: pack.baseUrl,
    newChatPath: pack.newChatPath,
    conversationPath: address(pack.conversationPath, users?.conversationPath !== undefined),
    loginUrl: address(pack.loginUrl, users?.loginUrl !== undefined),
    loginUrlPath: pack.loginUrlPath,
    input: pack.input,
    turnScope: typeof pack.turnScope === 'string' ? [pack.turnScope] : (pack.turnScope ?? []),
    roles,
    page: { ...page, ...(pack.variants?.thinking ? { thinking: pack.variants.thinking.map(pageCue) } : {}), ...attaching.page },
    limitReset: pack.limitReset,
    variants: compileVariants(pack.variants, pageCue),
    attachments: attaching.attachments,
  };
}

function toPageCue(cue: Cue, fromUser: boolean): PageCue {
  const pattern = (literal: string): PagePattern => (fromUser ? [...regexLiteral(literal), USER_TEXT_LIMIT] : regexLiteral(literal));
  return {
    kind: cue.kind,
    css: cue.css,
    ...(cue.text ? { text: pattern(cue.text) } : {}),
    ...(cue.name ? { name: cue.name.startsWith('@') ? ([uiWordPattern(cue.name.slice(1) as never), 'iu'] as const) : pattern(cue.name) } : {}),
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
 * override, cannot take more than linear time at a place of a text: pattern-safety.ts),
 * vocabulary words that exist.
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
    // A pattern that can match one stretch of text in many ways ((a|a)*$ runs 109 s on 29
    // characters) could hang the service or the page: a user's is refused where it loads. The
    // reviewed built-in packs lean on lookarounds the check cannot bound: they are not checked.
    const slow = untrusted ? superLinear(source, flags) : null;
    if (slow) problems.push(`${path}: the pattern could backtrack catastrophically, taking more than linear time on some text: ${slow}`);
  };
  if (pack.conversationPath !== undefined) compiles('/conversationPath', pack.conversationPath);
  if (pack.loginUrl !== undefined) compiles('/loginUrl', pack.loginUrl);
  const cueLists: [string, Cue[]][] = [
    ...Object.entries(pack.roles ?? {}).map(([role, cues]): [string, Cue[]] => [`/roles/${role}`, cues as Cue[]]),
    ...(['picker', 'thinking'] as const).map((field): [string, Cue[]] => [`/variants/${field}`, (pack.variants?.[field] ?? []) as Cue[]]),
    ...attachmentCueLists(pack.attachments),
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
