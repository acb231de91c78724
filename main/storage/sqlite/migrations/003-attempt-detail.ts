/** Schema 3: What the agent said about a failed attempt. */
export const sql = `
  -- What the agent said about a failed attempt: the page's error text, or the control it
  -- could not find when the provider's page changed. Shown to the person, never parsed.
  ALTER TABLE attempts ADD COLUMN detail TEXT;
  `;
