/** Schema 8: The variant a job asks for, and the model that answered. */
export const sql = `
  -- The variant (a model or mode of the provider's picker) the caller asked for, or null for
  -- the account's default; and the model the page said answered, or null where it does not say.
  ALTER TABLE jobs ADD COLUMN variant TEXT;
  ALTER TABLE jobs ADD COLUMN model_used TEXT;
  `;
