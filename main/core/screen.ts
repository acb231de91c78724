/**
 * Screen frames: the picture of an agent's page that the dashboard shows, and what a person
 * does in it. Both sides use them (the agent runtime casts and plays input; the admin API
 * validates and serves them), so their one schema lives in the core.
 */
import { Type, type Static } from '@sinclair/typebox';

/** A key as Playwright names it, with modifiers: `a`, `Enter`, `Shift+Tab`, `Control+a`. */
const KEY = '^((Control|Alt|Shift|Meta)\\+)*([^\\s]|Enter|Tab|Backspace|Delete|Escape|ArrowUp|ArrowDown|ArrowLeft|ArrowRight|Home|End|PageUp|PageDown)$';
const Coordinate = Type.Number({ minimum: 0, maximum: 10_000, description: "CSS pixels in the agent's page" });

/** What the person does in the dashboard's view of an agent's page, played into that page. */
export const ViewInput = Type.Union([
  Type.Object({ type: Type.Literal('click'), x: Coordinate, y: Coordinate }, { additionalProperties: false }),
  Type.Object(
    {
      type: Type.Literal('scroll'),
      x: Coordinate,
      y: Coordinate,
      dx: Type.Number({ minimum: -10_000, maximum: 10_000 }),
      dy: Type.Number({ minimum: -10_000, maximum: 10_000 }),
    },
    { additionalProperties: false },
  ),
  Type.Object({ type: Type.Literal('key'), key: Type.String({ maxLength: 40, pattern: KEY }) }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('text'), text: Type.String({ minLength: 1, maxLength: 10_000 }) }, { additionalProperties: false }),
]);
export type ViewInput = Static<typeof ViewInput>;

/** One picture of an agent's page (the `frame` event of its view stream). */
export const ViewFrame = Type.Object({
  jpeg: Type.String({ description: 'Base64' }),
  width: Type.Number({ description: 'The CSS width of the page the picture shows' }),
  height: Type.Number(),
});
export type ViewFrame = Static<typeof ViewFrame>;
