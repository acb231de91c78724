/**
 * The `variants` section of a selector pack: the models and modes a provider's own page lets
 * an account pick (decisions.md, "Models and modes within a provider"), as data. Each variant
 * is one or more steps (choose a model in the picker, set a toggle), each step found by the
 * words the site shows for it in the languages its users see. variant-choice.ts carries the
 * steps out in the page and verifies them.
 */
import { Type, type Static, type TOptional } from '@sinclair/typebox';
import { LIMITS } from '../../main/core/limits.js';
import { CueList } from './cue-schema.js';
import type { Cue, PageCue } from './cues.js';

/** The UI languages a variant's words are written for (a site that shows a model's name untranslated needs only `en`). */
const LANGUAGES = ['en', 'de', 'fr', 'es', 'pt', 'ru', 'ja', 'zh', 'ko', 'it'] as const;

const WordList = Type.Array(Type.String({ minLength: 1, maxLength: 200, description: 'Regex source matched at the start of the control’s label' }), {
  minItems: 1,
  maxItems: 20,
});

/** How a step is taken: an entry of the model picker's menu, a toggle on the page, or a toggle inside the picker's menu. */
export const STEP_KINDS = ['option', 'toggle', 'picker-toggle'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

const StepSchema = Type.Object(
  {
    how: Type.Union(STEP_KINDS.map((k) => Type.Literal(k))),
    words: Type.Object(Object.fromEntries(LANGUAGES.map((l) => [l, Type.Optional(WordList)])) as Record<(typeof LANGUAGES)[number], TOptional<typeof WordList>>, {
      additionalProperties: false,
      minProperties: 1,
    }),
  },
  { additionalProperties: false },
);

export const VariantSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9-]+$', maxLength: 60 }),
    label: Type.String({ minLength: 1, maxLength: 100, description: 'How people call it' }),
    steps: Type.Array(StepSchema, { minItems: 1, maxItems: 4 }),
    timeoutMs: Type.Optional(
      Type.Integer({
        minimum: LIMITS.timeoutMs.max + 1,
        maximum: LIMITS.longTimeoutMs,
        description: "A long-thinking variant's attempt limit, above the contract's: the largest timeout_ms a job under it takes, and its default (decisions.md)",
      }),
    ),
    source: Type.Optional(Type.String({ maxLength: 2_000, description: 'The public evidence its words and steps rest on' })),
    checked: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'When that evidence was read' })),
    note: Type.Optional(Type.String({ maxLength: 2_000 })),
  },
  { additionalProperties: false },
);
export type Variant = Static<typeof VariantSchema>;

/**
 * A place where the page names the model that answered (decisions.md: "what it names after
 * the answer"): an attribute or the text of an element of the answer's turn (ChatGPT's
 * message slug), of the model picker (its label) or of the mode toggles in force (their
 * labels, joined). `pattern`'s first group is the name; a text it does not match names nothing.
 */
const ModelPlaceSchema = Type.Object(
  {
    in: Type.Union([Type.Literal('answer'), Type.Literal('picker'), Type.Literal('toggles')]),
    css: Type.Optional(Type.String({ minLength: 1, maxLength: 2_000, description: 'answer: the element of the turn that names it (required); picker: an element inside the picker' })),
    attribute: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Read this attribute instead of the text' })),
    pattern: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Regex source (case-insensitive) whose first group is the name' })),
    note: Type.Optional(Type.String({ maxLength: 2_000 })),
  },
  { additionalProperties: false },
);
export type ModelPlace = Static<typeof ModelPlaceSchema>;

const SectionFields = {
  about: Type.Optional(Type.Array(Type.String())),
  picker: Type.Optional(CueList), // the control that opens the model menu
  option: Type.Optional(Type.String({ minLength: 1, maxLength: 2_000, description: 'CSS of an entry of the open model menu' })),
  toggle: Type.Optional(Type.String({ minLength: 1, maxLength: 2_000, description: 'CSS of a mode toggle on the page (or, for picker-toggle, in the menu)' })),
  selected: Type.Optional(Type.String({ minLength: 1, maxLength: 2_000, description: 'CSS an entry or toggle matches while it is the one in force' })),
  thinking: Type.Optional(CueList), // the page says it is thinking (a long-thinking mode at work)
  modelUsed: Type.Optional(Type.Array(ModelPlaceSchema, { minItems: 1, maxItems: 6, description: 'Where the page names the model that answered, the first that names one wins' })),
};

export const VariantsSchema = Type.Object(
  { ...SectionFields, selected: Type.String({ minLength: 1, maxLength: 2_000 }), list: Type.Array(VariantSchema, { maxItems: 50 }) },
  { additionalProperties: false },
);
export type VariantsSection = Static<typeof VariantsSchema>;

/** An override's `variants`: the fields it names replace the pack's; its `list` adds variants, or replaces those of the same id. */
export const VariantsOverrideSchema = Type.Object({ ...SectionFields, list: Type.Optional(Type.Array(VariantSchema, { maxItems: 50 })) }, { additionalProperties: false });
export type VariantsOverride = Static<typeof VariantsOverrideSchema>;

export function mergeVariants(pack: VariantsSection | undefined, override: VariantsOverride | undefined): VariantsSection | undefined {
  if (!override) return pack;
  const { list = [], about: _about, ...fields } = override;
  const base: VariantsSection = pack ?? { selected: '[aria-checked="true"], [aria-pressed="true"], [aria-selected="true"]', list: [] };
  const ids = new Set(list.map((v) => v.id));
  return { ...base, ...fields, list: [...base.list.filter((v) => !ids.has(v.id)), ...list] };
}

/** One step as the page is driven: its words as one pattern source (any language), matched at the start of a label. */
export interface VariantStep {
  how: StepKind;
  words: string;
}

export interface SiteVariant {
  id: string;
  label: string;
  steps: VariantStep[];
  /** A long-thinking variant's attempt limit (VariantSchema.timeoutMs); null: the contract's. */
  timeoutMs: number | null;
}

/** A provider's variants as the flow drives them; `list` is empty for a provider without any. */
export interface SiteVariants {
  picker: PageCue[];
  option: string | null;
  toggle: string | null;
  selected: string;
  modelUsed: ModelPlace[];
  list: SiteVariant[];
}

/**
 * What the page helpers read the model that answered by (page-helpers/answer-look.ts
 * `modelUsed`): where the page names it, and the picker and toggles those places read.
 */
export type ModelReading = Pick<SiteVariants, 'modelUsed' | 'picker' | 'toggle' | 'selected'>;

/** `variants`' ModelReading; null where the page names no model. */
export function modelReading({ modelUsed, picker, toggle, selected }: SiteVariants): ModelReading | null {
  return modelUsed.length === 0 ? null : { modelUsed, picker, toggle, selected };
}

export const NO_VARIANTS: SiteVariants = { picker: [], option: null, toggle: null, selected: '[aria-checked="true"]', modelUsed: [], list: [] };

/** The section compiled; `pageCue` turns a written cue into the page helpers' form. */
export function compileVariants(section: VariantsSection | undefined, pageCue: (cue: Cue) => PageCue): SiteVariants {
  if (!section) return NO_VARIANTS;
  return {
    picker: (section.picker ?? []).map(pageCue),
    option: section.option ?? null,
    toggle: section.toggle ?? null,
    selected: section.selected,
    modelUsed: section.modelUsed ?? [],
    list: section.list.map((v) => ({
      id: v.id,
      label: v.label,
      steps: v.steps.map((s) => ({ how: s.how, words: Object.values(s.words).flat().join('|') })),
      timeoutMs: v.timeoutMs ?? null,
    })),
  };
}

/**
 * What a schema cannot say: ids are unique, words compile (`compiles` says where not), and in a whole pack (`complete`)
 * each step has the controls it needs. An override may lean on the pack's controls; a step
 * whose control is missing after all is refused in the page (VariantUnavailable).
 */
export function variantProblems(section: VariantsOverride, complete: boolean, compiles: (path: string, source: string, flags: string) => void): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  (section.list ?? []).forEach((variant, i) => {
    if (seen.has(variant.id)) problems.push(`/variants/list/${i}/id: "${variant.id}" is listed twice`);
    seen.add(variant.id);
    variant.steps.forEach((step, j) => {
      const needs = step.how === 'option' ? (['picker', 'option'] as const) : step.how === 'picker-toggle' ? (['picker', 'toggle'] as const) : (['toggle'] as const);
      if (complete) for (const field of needs) if (section[field] === undefined) problems.push(`/variants/list/${i}/steps/${j}: a "${step.how}" step needs variants.${field}`);
      for (const word of Object.values(step.words).flat()) compiles(`/variants/list/${i}/steps/${j}/words`, word, 'iu');
    });
  });
  (section.modelUsed ?? []).forEach((place, i) => {
    if (place.in === 'answer' && place.css === undefined) problems.push(`/variants/modelUsed/${i}: a place "in" the answer needs its css`);
    if (place.pattern !== undefined) compiles(`/variants/modelUsed/${i}/pattern`, place.pattern, 'iu');
  });
  return problems;
}
