/**
 * The page helpers' own world: an isolated JavaScript world of the provider's page, made
 * through the page's DevTools session, where the helpers (page-helpers.ts) live and every
 * call on them runs. The DOM is shared between worlds, the JavaScript globals are not: the
 * helpers see the same page, and the page's scripts can neither see, call nor replace them,
 * nor fool them by replacing a built-in (a getter, querySelector) in their own world.
 *
 * Chromium makes the world anew in each document before the page's scripts run
 * (`Page.addScriptToEvaluateOnNewDocument` with a world name); the world's context of the
 * current document is followed through `Runtime.executionContextCreated`. A call is one
 * round trip (`Runtime.callFunctionOn` in that context), as `page.evaluate` was.
 *
 * An element the helpers find is handed to Playwright by its place in the tree (tag and
 * index at each step, checked on the way down), resolved by a selector engine that runs in
 * Playwright's own isolated world: a click or a fill then goes through Playwright as before,
 * and nothing is written into the page to point at the element. The one hook in the page's
 * own world, for a copy press only, is copy-hook.ts (`withCopyHook`).
 */
import type { BrowserContext, CDPSession, ElementHandle, Page } from 'playwright-core';
import { COPY_HOOK } from './copy-hook.js';
import { pageTime } from './flow-context.js';
import { PAGE_HELPERS_SCRIPT } from './page-helpers.js';
import type { Helpers, ViewportPoint } from './page-helpers/types.js';

/** The world's name, as DevTools lists it; the page's scripts never see it. */
const WORLD = 'chatbridge';
const PATH_ENGINE = 'chatbridge-path';

/** Code run in the world: given the helpers and one JSON argument. Serialised with toString, so it may use nothing from its file's scope. */
export type InWorld<A, R> = (h: Helpers, arg: A) => R;

/** How a wait in the page looks again: every `n` ms, or at each animation frame. */
export type Polling = number | 'raf';

/**
 * Finds the element at a path `pathOf` made: `tag:index` per step among the parent's element
 * children, `#shadow` into an open shadow root. A step whose tag differs (the tree changed in
 * between) finds nothing. Runs in Playwright's isolated world (a content script).
 */
const PATH_ENGINE_SCRIPT = `({
  query(root, body) {
    let node = root.ownerDocument ?? root;
    for (const step of body.split('/')) {
      if (step === '#shadow') { node = node.shadowRoot; if (!node) return null; continue; }
      const [tag, index] = step.split(':');
      const next = (node.nodeType === 9 ? [node.documentElement] : Array.from(node.children))[Number(index)];
      if (!next || next.localName !== tag) return null;
      node = next;
    }
    return node.nodeType === 1 ? node : null;
  },
  queryAll(root, body) {
    const found = this.query(root, body);
    return found ? [found] : [];
  },
})`;

/**
 * Playwright's selector registry, loaded with the first page: a service without agents (or
 * before its first) does not hold playwright-core, some 90 MB resident once imported.
 */
const selectors = async () => (await import('playwright-core')).selectors;

let engine: Promise<void> | null = null;
/** The path engine, registered once for every browser this process launches. */
function registerEngine(): Promise<void> {
  engine ??= selectors().then((registry) => registry.register(PATH_ENGINE, PATH_ENGINE_SCRIPT, { contentScript: true }));
  return engine;
}
/**
 * A browser reached with connectOverCDP (the desktop's agent views) is handed only the
 * engines registered after it connected: one of those gets an engine of its own, under a
 * name of its own (Playwright refuses a name twice), once.
 */
const ownEngines = new WeakMap<BrowserContext, Promise<string>>();
let enginesMade = 0;
function ownEngine(context: BrowserContext): Promise<string> {
  let name = ownEngines.get(context);
  if (!name) {
    const made = `${PATH_ENGINE}-${++enginesMade}`;
    name = selectors()
      .then((registry) => registry.register(made, PATH_ENGINE_SCRIPT, { contentScript: true }))
      .then(() => made);
    ownEngines.set(context, name);
  }
  return name;
}

/** A DevTools error that means the world's context is gone (its document left) before or while the call ran. */
function contextGone(error: unknown): boolean {
  return /Cannot find context|Execution context was destroyed|Inspected target navigated|Cannot find default execution context/i.test(String((error as Error)?.message ?? error));
}

type ContextCreated = { context: { id: number; name: string; auxData?: { frameId?: string } } };
type CallResult = { result: { value?: unknown; objectId?: string }; exceptionDetails?: { text: string; exception?: { description?: string } } };

export class PageWorld {
  /** The world's context in the current document of the main frame, once Chromium has made it. */
  private contextId: number | null = null;
  private waiters: ((id: number) => void)[] = [];
  private readonly ready: Promise<void>;
  private closed: Error | null = null;
  private cdp: CDPSession | null = null;
  /** The copy channel of the current document, as the page's world holds it (copy-hook.ts), by the helpers' context it belongs to. */
  private channel: { contextId: number; objectId: string } | null = null;

  constructor(private readonly page: Page) {
    this.ready = this.start();
    this.ready.catch(() => {});
    page.once('close', () => {
      this.closed = new Error('The page has been closed.');
      for (const wake of this.waiters.splice(0)) wake(-1);
    });
  }

  private async start(): Promise<void> {
    await registerEngine();
    const cdp = await this.page.context().newCDPSession(this.page);
    this.cdp = cdp;
    const { frameTree } = (await cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
    const mainFrame = frameTree.frame.id;
    cdp.on('Runtime.executionContextCreated', ({ context }: ContextCreated) => {
      if (context.name !== WORLD || context.auxData?.frameId !== mainFrame) return;
      this.contextId = context.id;
      for (const wake of this.waiters.splice(0)) wake(context.id);
    });
    cdp.on('Runtime.executionContextDestroyed', ({ executionContextId }: { executionContextId: number }) => {
      if (executionContextId === this.contextId) this.contextId = null;
    });
    cdp.on('Runtime.executionContextsCleared', () => (this.contextId = null));
    // A session runs its scripts for new documents only with its Page domain enabled.
    await cdp.send('Page.enable');
    await cdp.send('Runtime.enable');
    // Runs in every later document before its scripts, and at once in the current one.
    await cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: PAGE_HELPERS_SCRIPT, worldName: WORLD, runImmediately: true });
  }

  /** The world's context in the current document, waiting for the document to have one (a navigation under way). */
  private async context(): Promise<number> {
    await this.ready;
    if (this.closed) throw this.closed;
    if (this.contextId !== null) return this.contextId;
    const id = await new Promise<number>((resolve) => this.waiters.push(resolve));
    if (this.closed) throw this.closed;
    return id;
  }

  /**
   * Calls `declaration` (a function source) with `args` in the world of the current document; a
   * call that never ran there (the document left) is made in the next one. `byValue: false`
   * answers with the result's object id instead, and the context it lives in.
   */
  private async call(declaration: string, args: unknown[], byValue = true): Promise<unknown> {
    for (;;) {
      const executionContextId = await this.context();
      let reply: CallResult;
      try {
        reply = (await this.cdp!.send('Runtime.callFunctionOn', {
          functionDeclaration: declaration,
          executionContextId,
          arguments: args.map((value) => ({ value })),
          awaitPromise: true,
          returnByValue: byValue,
        })) as CallResult;
      } catch (error) {
        if (!/Cannot find context/i.test(String((error as Error).message))) throw error;
        if (this.contextId === executionContextId) this.contextId = null;
        continue;
      }
      if (reply.exceptionDetails) throw new Error(reply.exceptionDetails.exception?.description ?? reply.exceptionDetails.text);
      return byValue ? reply.result.value : { contextId: executionContextId, objectId: reply.result.objectId! };
    }
  }

  /** `fn` run on the helpers in the page, its result returned as JSON. */
  run<A, R>(fn: InWorld<A, R>, arg: A): Promise<Awaited<R>> {
    return this.call(`function (arg) { return (${fn.toString()})(window.__chatbridge, arg); }`, [arg]) as Promise<Awaited<R>>;
  }

  /**
   * Runs `work` with the page's clipboard writes caught into the helpers' `clipboard`
   * (copy-hook.ts): the hook is set before and taken away after, whatever `work` does.
   * `armed`: the helpers set it a moment ago, in the call that found the answer finished
   * (the watch's `armCopyHook`), and it is not set again. That holds for the channel the
   * helpers armed, which is this document's: a channel made now is a new document's, where
   * the hook is set first as always.
   */
  async withCopyHook<T>(work: () => Promise<T>, armed = false): Promise<T> {
    const { objectId: channel, madeNow } = await this.copyChannel();
    const cdp = this.cdp!;
    if (!armed || madeNow) await cdp.send('Runtime.callFunctionOn', { functionDeclaration: "function () { this.dispatchEvent(new Event('chatbridge-arm')); }", objectId: channel });
    try {
      return await work();
    } finally {
      // Not waited for: the session runs its commands in order, so nothing later sent to the
      // page finds the hook still set.
      void cdp.send('Runtime.callFunctionOn', { functionDeclaration: "function () { this.dispatchEvent(new Event('chatbridge-disarm')); }", objectId: channel }).catch(() => {});
    }
  }

  /**
   * A person's click at `point` (CSS pixels of the viewport): the mouse moved there, pressed
   * and released, as trusted input. The three go to the browser together, in order, rather
   * than each after the last is answered (as Playwright's own `mouse.click` sends them).
   */
  async press(point: ViewportPoint): Promise<void> {
    await this.ready;
    const cdp = this.cdp!;
    const at = { x: point.x, y: point.y };
    await Promise.all([
      cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', ...at, button: 'none', buttons: 0 }),
      cdp.send('Input.dispatchMouseEvent', { type: 'mousePressed', ...at, button: 'left', buttons: 1, clickCount: 1 }),
      cdp.send('Input.dispatchMouseEvent', { type: 'mouseReleased', ...at, button: 'left', buttons: 0, clickCount: 1 }),
    ]);
  }

  /**
   * The helpers' copy channel (an element in no document) as the page's own world holds it,
   * listened to there by the hook (copy-hook.ts): made once per document; `madeNow` if this
   * call made it.
   */
  private async copyChannel(): Promise<{ objectId: string; madeNow: boolean }> {
    const current = await this.context();
    if (this.channel?.contextId === current) return { objectId: this.channel.objectId, madeNow: false };
    const made = (await this.call('function () { return window.__chatbridge.copyChannel(); }', [], false)) as { contextId: number; objectId: string };
    const cdp = this.cdp!;
    const { node } = (await cdp.send('DOM.describeNode', { objectId: made.objectId })) as { node: { backendNodeId: number } };
    // Resolved without a context: in the page's own world, where the hook runs.
    const { object } = (await cdp.send('DOM.resolveNode', { backendNodeId: node.backendNodeId })) as { object: { objectId: string } };
    await cdp.send('Runtime.releaseObject', { objectId: made.objectId }).catch(() => {});
    await cdp.send('Runtime.callFunctionOn', { functionDeclaration: COPY_HOOK, objectId: object.objectId });
    this.channel = { contextId: made.contextId, objectId: object.objectId };
    return { objectId: object.objectId, madeNow: true };
  }

  /**
   * Makes now what a document's first copy costs: the copy channel and its hook's listeners
   * (five round trips), paid while the agent waits for a job rather than between its prompt
   * and its answer; with them, the watch sets the hook itself as the answer ends. Nothing on a
   * job's usual way takes a Playwright handle (`element`), so Playwright's own script (some
   * 350 KB, in two worlds) is loaded into a document only when one of the other ways needs it.
   */
  async warm(): Promise<void> {
    await this.copyChannel().catch(() => {});
  }

  /** The element `fn` finds in the page, as a Playwright handle (null: none, or the page changed under it). */
  async element<A>(fn: InWorld<A, Element | null | undefined>, arg: A): Promise<ElementHandle<Element> | null> {
    const path = (await this.call(`function (arg) { const h = window.__chatbridge; const el = (${fn.toString()})(h, arg); return el ? h.pathOf(el) : null; }`, [arg])) as string | null;
    if (path === null) return null;
    const own = ownEngines.get(this.page.context());
    if (own) return this.page.$(`${await own}=${path}`);
    try {
      return await this.page.$(`${PATH_ENGINE}=${path}`);
    } catch (error) {
      if (!/Unknown engine/.test((error as Error).message)) throw error;
      return this.page.$(`${await ownEngine(this.page.context())}=${path}`);
    }
  }

  /**
   * Runs `fn` in the page until it returns something truthy, which is returned; null once
   * `timeout` ms have passed. Like Playwright's waitForFunction it looks again in each new
   * document the page loads meanwhile.
   */
  async waitFor<A, R>(fn: InWorld<A, R>, arg: A, { timeout, polling = 'raf' }: { timeout: number; polling?: Polling }): Promise<Awaited<R> | null> {
    const declaration = `function (arg, timeout, polling) {
      const h = window.__chatbridge;
      const fn = ${fn.toString()};
      const end = performance.now() + timeout;
      return new Promise((resolve, reject) => {
        // A background tab runs no animation frames: the time still runs out.
        const out = setTimeout(() => resolve(null), timeout);
        const look = () => {
          let seen;
          try { seen = fn(h, arg); } catch (error) { clearTimeout(out); return reject(error); }
          if (seen) { clearTimeout(out); return resolve(seen); }
          if (performance.now() >= end) { clearTimeout(out); return resolve(null); }
          if (polling === 'raf') requestAnimationFrame(look); else setTimeout(look, polling);
        };
        look();
      });
    }`;
    const end = pageTime.now() + timeout;
    for (;;) {
      try {
        return (await this.call(declaration, [arg, Math.max(end - pageTime.now(), 0), polling])) as Awaited<R> | null;
      } catch (error) {
        // The document left while the wait ran: look again in the next one, in the time left.
        if (!contextGone(error) || pageTime.now() >= end) throw error;
      }
    }
  }
}

const worlds = new WeakMap<Page, PageWorld>();

/** The helpers' world of `page`, made on first use and kept for the page's life. */
export function pageWorld(page: Page): PageWorld {
  let world = worlds.get(page);
  if (!world) {
    world = new PageWorld(page);
    worlds.set(page, world);
  }
  return world;
}
