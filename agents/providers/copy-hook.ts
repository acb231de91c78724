/**
 * The one hook ChatBridge puts in the page's own world, and only around its press of a copy
 * control: a provider's copy button hands its Markdown to `navigator.clipboard.writeText`
 * (or `write`) in the page's world, the one place that sees it, and letting it through would
 * overwrite the person's real clipboard. So for the press those two are own properties of the
 * page's `navigator.clipboard`; then they are removed, leaving the object as it was.
 *
 * What they catch goes to the helpers' world at once, as an event on an element of that world
 * that is in no document (`channel`, handed over by DevTools, page-world.ts): the page's
 * scripts can reach neither the element nor the text, and a code block's own Copy, clicked by
 * the helpers mid-conversion (markdown.ts), is read back before the click returns.
 *
 * The hook is set and taken away by events on the channel, 'chatbridge-arm' and
 * 'chatbridge-disarm', which the page's world listens for from the channel's making on: so
 * the helpers' world can set it too, in the same call that finds an answer finished and its
 * Copy free to press, and the press that follows needs no round trip to the page first (the
 * watch's `armCopyHook`). An arm is taken away by the flow after the press, or after ARMED_MS
 * if the flow never comes (its job ended in between): the page's clipboard is never left
 * caught.
 */

/** The longest a hook is left set: far longer than any press and read of an answer (seconds), far shorter than a person's next copy. */
const ARMED_MS = 60_000;

/**
 * Run once per document in the page's world with `this` the channel: listens for the arm and
 * disarm events. An arm cancels its event, so whoever dispatched it knows the hook is set.
 */
export const COPY_HOOK = `function () {
  const channel = this;
  // Once per channel: two sets of listeners would each set the hook, the second over the first,
  // and the first's undo would then leave the second's in place.
  if (channel.chatbridgeListens) return;
  channel.chatbridgeListens = true;
  const keep = (text) => {
    channel.dispatchEvent(new CustomEvent('chatbridge-copy', { detail: String(text) }));
    return Promise.resolve();
  };
  /** Sets the hook; returns what takes it away again. */
  const set = () => {
    const clipboard = navigator.clipboard;
    if (!clipboard) return () => {};
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
    return () => {
      for (const name of ['writeText', 'write']) {
        if (own[name]) Object.defineProperty(clipboard, name, own[name]);
        else delete clipboard[name];
      }
    };
  };
  let undo = null;
  let expiry = 0;
  const disarm = () => {
    clearTimeout(expiry);
    if (undo) undo();
    undo = null;
  };
  channel.addEventListener('chatbridge-arm', (event) => {
    undo ??= set();
    clearTimeout(expiry);
    expiry = setTimeout(disarm, ${ARMED_MS});
    event.preventDefault();
  });
  channel.addEventListener('chatbridge-disarm', disarm);
}`;
