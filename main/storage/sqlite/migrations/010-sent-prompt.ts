/** Schema 10: Where an attempt's answer can be found again once its prompt went. */
export const sql = `
  -- Where an attempt's answer can be found again once its prompt went: the conversation's
  -- address (null until the page showed one) and the assistant turns before the send (null
  -- while the prompt has not gone). A restart collects that answer instead of resending.
  ALTER TABLE attempts ADD COLUMN sent_conversation TEXT;
  ALTER TABLE attempts ADD COLUMN sent_turns_before INTEGER;
  `;
