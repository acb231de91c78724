/**
 * The one hook ChatBridge puts in the page's own world, and only while it presses a copy
 * control: a provider's copy button hands its Markdown to `navigator.clipboard.writeText`
 * (or `write`) in the page's world, the one place that sees it, and letting it through would
 * overwrite the person's real clipboard. So for the press those two are own properties of the
 * page's `navigator.clipboard`; then they are removed, leaving the object as it was.
 *
 * What they catch goes to the helpers' world at once, as an event on an element of that world
 * that is in no document (`channel`, handed over by DevTools, page-world.ts): the page's
 * scripts can reach neither the element nor the text, and a code block's own Copy, clicked by
 * the helpers mid-conversion (markdown.ts), is read back before the click returns.
 */

/** The hook, run in the page's world with `this` the channel: returns what takes it away again. */
export const COPY_HOOK = `function () {
  const channel = this;
  const clipboard = navigator.clipboard;
  if (!clipboard) return { undo() {} };
  const keep = (text) => {
    channel.dispatchEvent(new CustomEvent('chatbridge-copy', { detail: String(text) }));
    return Promise.resolve();
  };
  // What the page itself set on the object (normally nothing), to put back afterwards.
  const own = { writeText: Object.getOwnPropertyDescriptor(clipboard, 'writeText'), write: Object.getOwnPropertyDescriptor(clipboard, 'write') };
  Object.defineProperty(clipboard, 'writeText', { value: keep, configurable: true, writable: true });
  Object.defineProperty(clipboard, 'write', {
    value: async (items) => {
      for (const item of items) if (item.types.includes('text/plain')) return keep(await (await item.getType('text/plain')).text());
    },
    configurable: true,
    writable: true,
  });
  return {
    undo() {
      for (const name of ['writeText', 'write']) {
        if (own[name]) Object.defineProperty(clipboard, name, own[name]);
        else delete clipboard[name];
      }
    },
  };
}`;
