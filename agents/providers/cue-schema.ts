/** The schema of one cue of a selector pack (site.ts, Cue), shared by the roles and the variants of a pack. */
import { Type } from '@sinclair/typebox';
import { CUE_KINDS } from './cues.js';

const REGEX_LITERAL = '^/.+/[dgimsuvy]*$';

const CueSchema = Type.Object(
  {
    kind: Type.Union(CUE_KINDS.map((k) => Type.Literal(k))),
    css: Type.String({ minLength: 1, maxLength: 2_000 }),
    text: Type.Optional(Type.String({ pattern: REGEX_LITERAL, maxLength: 2_000 })),
    name: Type.Optional(Type.String({ pattern: `${REGEX_LITERAL}|^@[a-z]+$`, maxLength: 2_000 })),
    note: Type.Optional(Type.String({ maxLength: 2_000 })),
  },
  { additionalProperties: false },
);

export const CueList = Type.Array(CueSchema, { minItems: 1, maxItems: 50 });

