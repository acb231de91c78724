/**
 * The second answer of an A/B pair ("Response 2"): the first one with a line of its own in
 * front, so that which of the two a client returned is plain to see. Pure, so that the page
 * (which shows it) and the site server (which keeps the one picked) agree on its words.
 */
export const SECOND_RESPONSE_LEAD = '*Response 2: another draft of the same answer.*';

export function secondResponse(markdown: string): string {
  return `${SECOND_RESPONSE_LEAD}\n\n${markdown}`;
}
