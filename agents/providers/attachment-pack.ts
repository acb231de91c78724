/**
 * The `attachments` section of a selector pack (decisions.md, "Attachments"): what the
 * provider's site takes as files (types, size per file, files per message), each figure
 * with where it comes from and when it was read, and how the flow puts files through the
 * page's own control (attach-files.ts): the hidden file input set directly (`input`), or the
 * site's upload menu clicked until the browser opens its file chooser (`chooser`: Gemini,
 * whose page has no input until then).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { AttachmentRules } from '../../main/core/attachments.js';
import { CueList } from './cue-schema.js';
import type { Cue, PageCue } from './cues.js';

const DATE = '^\\d{4}-\\d{2}-\\d{2}$';

/** A figure with its evidence: `value` null means none is known, and the flow and the submission check impose none. */
const sourced = <T extends TSchema>(value: T) =>
  Type.Object(
    {
      value,
      source: Type.String({ minLength: 1, maxLength: 2_000, description: 'Where the figure comes from; "nothing public" where so, and why this figure was chosen' }),
      checked: Type.String({ pattern: DATE, description: 'When that source was read (or the figure chosen)' }),
    },
    { additionalProperties: false },
  );

/** A MIME type, a `type/*` pattern or a file ending (`.pdf`). */
const FileType = Type.String({ pattern: '^(?:\\.[A-Za-z0-9_+-]+|[a-z]+/(?:\\*|[A-Za-z0-9][A-Za-z0-9.+_-]*))$', maxLength: 100 });

const Limits = {
  types: sourced(Type.Union([Type.Null(), Type.Array(FileType, { minItems: 1, maxItems: 300 })])),
  maxFileBytes: sourced(Type.Union([Type.Null(), Type.Integer({ minimum: 1 })])),
  maxFiles: sourced(Type.Union([Type.Null(), Type.Integer({ minimum: 1 })])),
};

/** The cue lists of the section, as the page helpers take them (the keys they have in the page's pack). */
export const ATTACH_CUES = {
  fileInput: 'fileInput', // the page's own input[type=file] the files are set on (hidden: found without being visible)
  opener: 'attachOpener', // chooser: the control that opens the upload menu
  menuItem: 'attachMenuItem', // chooser: the menu's entry that opens the file chooser
  chip: 'attachChip', // one per file in the composer, named by the file (title, aria-label, or its text)
  busy: 'attachBusy', // inside (or on) a chip while its upload runs
  refusal: 'attachRefusal', // the notice in which the site refuses a file
} as const;
export type AttachCueField = keyof typeof ATTACH_CUES;
export type AttachCueKey = (typeof ATTACH_CUES)[AttachCueField];

const CueFields = {
  fileInput: Type.Optional(CueList),
  opener: Type.Optional(CueList),
  menuItem: Type.Optional(CueList),
  chip: Type.Optional(CueList),
  busy: Type.Optional(CueList),
  refusal: Type.Optional(CueList),
};

const Via = Type.Union([Type.Literal('input'), Type.Literal('chooser')]);

export const AttachmentsSchema = Type.Object(
  {
    about: Type.Optional(Type.Array(Type.String())),
    ...Limits,
    via: Via,
    ...CueFields,
    chip: CueList,
    busy: CueList,
    refusal: CueList,
  },
  { additionalProperties: false },
);
export type AttachmentsSection = Static<typeof AttachmentsSchema>;

/** An override's `attachments`: each field it names replaces the pack's. */
export const AttachmentsOverrideSchema = Type.Object(
  {
    about: Type.Optional(Type.Array(Type.String())),
    types: Type.Optional(Limits.types),
    maxFileBytes: Type.Optional(Limits.maxFileBytes),
    maxFiles: Type.Optional(Limits.maxFiles),
    via: Type.Optional(Via),
    ...CueFields,
  },
  { additionalProperties: false },
);
export type AttachmentsOverride = Static<typeof AttachmentsOverrideSchema>;

export function mergeAttachments(pack: AttachmentsSection | undefined, override: AttachmentsOverride | undefined): AttachmentsSection | undefined {
  if (!override || !pack) return pack;
  const { about: _about, ...fields } = override;
  return { ...pack, ...fields };
}

/** How the flow attaches files on a site. */
export interface SiteAttachments {
  rules: AttachmentRules;
  via: 'input' | 'chooser';
}

/** The section compiled: the rules, the way in, and its cue lists for the page's pack. */
export function compileAttachments(
  section: AttachmentsSection | undefined,
  pageCue: (cue: Cue) => PageCue,
): { attachments: SiteAttachments | null; page: Partial<Record<AttachCueKey, PageCue[]>> } {
  if (!section) return { attachments: null, page: {} };
  const page: Partial<Record<AttachCueKey, PageCue[]>> = {};
  for (const [field, key] of Object.entries(ATTACH_CUES) as [AttachCueField, AttachCueKey][]) {
    const cues = section[field];
    if (cues) page[key] = cues.map(pageCue);
  }
  return {
    attachments: {
      rules: { types: section.types.value, maxFileBytes: section.maxFileBytes.value, maxFiles: section.maxFiles.value },
      via: section.via,
    },
    page,
  };
}

/** Every cue list of the section, by its path in the pack, for the checks of their patterns. */
export function attachmentCueLists(section: AttachmentsOverride | undefined): [string, Cue[]][] {
  if (!section) return [];
  return (Object.keys(ATTACH_CUES) as AttachCueField[]).flatMap((field): [string, Cue[]][] => {
    const cues = section[field];
    return cues ? [[`/attachments/${field}`, cues as Cue[]]] : [];
  });
}

/** What a schema cannot say: the cues a whole pack's way in needs (an override leans on the pack's; a cue it lacks after all fails the attempt in the page, naming what is missing). */
export function attachmentProblems(section: AttachmentsOverride): string[] {
  if (section.via === 'input' && !section.fileInput) return ['/attachments: via "input" needs fileInput'];
  if (section.via === 'chooser' && (!section.opener || !section.menuItem)) return ['/attachments: via "chooser" needs opener and menuItem'];
  return [];
}
