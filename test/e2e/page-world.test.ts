/**
 * The page helpers live where the page's scripts cannot reach them (issue 34): an agent that
 * answers a prompt and keeps a diagnostic bundle leaves the page's own world as it found it
 * (no global, no own property on a built-in, nothing written into the live page), a page
 * script that plants a `window.__chatbridge` or replaces built-ins cannot change the answer,
 * and a bundle taken where the turn cue broke carries no word of the conversation, its
 * screenshot blurred. Real Chromium, the real flow, a simulated Claude.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interfaceWords } from '../../agents/providers/interface-words.js';
import { DiagnosticsKeeper } from '../../agents/runtime/diagnostics.js';
import { simulatedAnswer } from '../../agents/simulator/answer.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { AgentFailure } from '../../main/core/agent.js';
import { diagnosticsRoot } from '../../main/core/diagnostics.js';
import { startE2E, type E2E } from '../support/e2e.js';
import { until } from '../support/until.js';

/** The page's own world as its scripts see it: its globals, and the own properties of the built-ins the helpers once touched. */
function snapshot() {
  {
    const own = (o: object) => Object.getOwnPropertyNames(o).sort();
    const builtIns: Record<string, object> = {
      window,
      document,
      navigator,
      'navigator.clipboard': navigator.clipboard,
      'Clipboard.prototype': Clipboard.prototype,
      'EventTarget.prototype': EventTarget.prototype,
      'Node.prototype': Node.prototype,
      'Element.prototype': Element.prototype,
      'HTMLElement.prototype': HTMLElement.prototype,
      'Document.prototype': Document.prototype,
      'Navigator.prototype': Navigator.prototype,
      'Object.prototype': Object.prototype,
      'Function.prototype': Function.prototype,
    };
    const native = (f: unknown) => typeof f !== 'function' || /\{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(f));
    // A built-in's method or accessor replaced by script, whatever its name.
    const replaced = Object.entries(builtIns)
      .filter(([name]) => name.endsWith('.prototype') || name === 'navigator.clipboard')
      .flatMap(([name, o]) =>
        own(o).flatMap((key) => {
          const d = Object.getOwnPropertyDescriptor(o, key)!;
          return native(d.value) && native(d.get) && native(d.set) ? [] : [`${name}.${key}`];
        }),
      );
    return { own: Object.fromEntries(Object.entries(builtIns).map(([name, o]) => [name, own(o)])), replaced };
  }
}
type World = ReturnType<typeof snapshot>;

/**
 * Has each document of the context keep its world as it leaves (pagehide) in the tab's
 * sessionStorage, which outlives the document: the world of the page an agent answered on,
 * which it leaves for a fresh chat at once. Adds no global itself (a listener is no property).
 */
async function recordWorldsOnLeave(page: Page): Promise<void> {
  await page.context().addInitScript(`addEventListener('pagehide', () => sessionStorage.setItem('world-at-leave', JSON.stringify((${snapshot.toString()})())));`);
}
async function worldLeft(page: Page): Promise<World> {
  return JSON.parse((await page.evaluate(() => sessionStorage.getItem('world-at-leave')))!) as World;
}
function expectSameWorld(after: World, before: World, when: string): void {
  expect(after.replaced, when).toEqual(before.replaced);
  for (const [name, names] of Object.entries(after.own)) expect(names, `${name} ${when}`).toEqual(before.own[name]);
}

/** How much neighbouring pixels differ, on average, in a PNG: text is sharp edges, a blur has few. */
async function edgeEnergy(page: Page, png: Buffer): Promise<number> {
  return page.evaluate(async (b64) => {
    const image = await createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
    const canvas = new OffscreenCanvas(image.width, image.height);
    const g = canvas.getContext('2d')!;
    g.drawImage(image, 0, 0);
    const { data, width, height } = g.getImageData(0, 0, image.width, image.height);
    let sum = 0;
    for (let y = 0; y < height; y++) for (let x = 1; x < width; x++) sum += Math.abs(data[(y * width + x) * 4]! - data[(y * width + x - 1) * 4]!);
    return sum / (width * height);
  }, png.toString('base64'));
}

/** The words of `texts` a bundle must not hold: all but the site's interface words, four letters or more. */
function conversationWords(texts: string[], keep: string[]): string[] {
  const interface_ = new Set(keep);
  return [...new Set(texts.flatMap((t) => t.toLowerCase().match(/\p{L}{4,}/gu) ?? []))].filter((w) => !interface_.has(w));
}

describe("the page's own world", () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E('claude', 1, {}, { limits: { composerMs: 3_000, appearMs: 3_000 } });
  }, 60_000);
  afterAll(async () => e?.stop());

  const ask = (body: Record<string, unknown>) => e.api('POST', '/v1/completions', { body: { provider: 'claude', ...body } });
  const agentPage = () => e.browserAgents[0]!.page()!;
  /** The agent done with its last job: its fresh chat for the next one open and loaded, nothing under way. */
  const agentIdle = () =>
    until(
      async () =>
        e.browserAgents[0]!.readiness() === 'idle' &&
        !e.service.scheduler.isRunningOn(e.browserAgents[0]!.id) &&
        (await agentPage()
          .evaluate((path) => location.pathname === path && document.readyState === 'complete', SIM_SITES.claude!.paths.newChat)
          .catch(() => false)),
      15_000,
      'the agent idle again',
    );

  it('is left as it was by an agent that answers and keeps a bundle: no global, no changed built-in, nothing written into the page', async () => {
    await recordWorldsOnLeave(agentPage());
    // The same site in a page ChatBridge has never worked on: the world as the site makes it, as it leaves.
    const plain = await agentPage().context().newPage();
    const newChat = new URL(SIM_SITES.claude!.paths.newChat, e.sim.url).href;
    await plain.goto(newChat);
    await plain.locator('[data-testid="chat-input"]').waitFor();
    await plain.goto(newChat);
    const before = await worldLeft(plain);
    await plain.close();

    // A first job, so that the next runs in a document the recording is in.
    expect((await ask({ prompt: 'A first one.' })).status).toBe(200);
    await agentIdle();
    const prompt = 'Name a colour like periwinkle.';
    const r = await ask({ prompt });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.response).toBe(simulatedAnswer('Claude', 'claude', prompt, 1));
    await agentIdle();
    const page = agentPage();
    // The document it answered on (and copied the answer from), as the agent left it.
    expectSameWorld(await worldLeft(page), before, 'where the agent answered');
    // Whatever the page does while a bundle is taken of it, seen from its own world.
    const watch = await page.evaluateHandle(() => {
      const seen: string[] = [];
      const observer = new MutationObserver((records) => {
        for (const m of records) seen.push(m.type === 'attributes' ? `attribute ${m.attributeName}` : `${m.addedNodes.length} added, ${m.removedNodes.length} removed`);
      });
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      return { take: () => (observer.disconnect(), seen) };
    });
    const dir = mkdtempSync(join(tmpdir(), 'chatbridge-bundle-'));
    await new DiagnosticsKeeper(dir).keep({
      label: `${r.body.id}-1`,
      agentId: e.browserAgents[0]!.id,
      page,
      site: e.site,
      failure: new AgentFailure('provider_error', 'a bundle taken for the test'),
      at: Date.now(),
      secrets: [prompt],
    });
    expect(readdirSync(join(dir, `${r.body.id}-1`)).sort()).toEqual(['failure.json', 'page.html', 'screenshot.png']);
    expect(await watch.evaluate((w) => w.take())).toEqual([]);
    await watch.dispose();

    expectSameWorld(await page.evaluate(snapshot), before, 'after the bundle');
  }, 60_000);

  it('gives the answer the site gave, whatever a page script plants in its world', async () => {
    // A site's script (or one it loads) that plants its own helpers under the old name, makes
    // every element's innerText a lie, and hides elements from querySelectorAll.
    await agentPage()
      .context()
      .addInitScript(() => {
        const lie = () => 'TAMPERED';
        sessionStorage.setItem('tampered-at', location.href);
        const fake = new Proxy({}, { get: () => lie });
        Object.defineProperty(window, '__chatbridge', { get: () => fake, set: () => {}, configurable: false });
        Object.defineProperty(HTMLElement.prototype, 'innerText', { get: lie, configurable: true });
        const all = Document.prototype.querySelectorAll;
        Document.prototype.querySelectorAll = function (this: Document, css: string) {
          return /turn|message|response/i.test(css) ? all.call(this, 'nothing-at-all') : all.call(this, css);
        } as typeof all;
      });
    // A first job, so that the next runs in a document the planted script is in.
    await ask({ prompt: 'A first one.' });
    await agentIdle();
    await agentPage().evaluate(() => sessionStorage.removeItem('tampered-at'));
    const prompt = 'Which colour did the page script not change?';
    const r = await ask({ prompt });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.response).toBe(simulatedAnswer('Claude', 'claude', prompt, 1));
    // The planted script was in force on the page that answered.
    await agentIdle();
    expect(await agentPage().evaluate(() => sessionStorage.getItem('tampered-at'))).toMatch(/^http/);
  }, 60_000);

  it("keeps a bundle without a word of the conversation when the turn cue is what broke, its screenshot blurred", async () => {
    const earlier = 'Remember the word tangerine and the word marmalade.';
    const first = await ask({ prompt: earlier });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    // Every cue of the answer's turn gone, as after a redesign: the next prompt fails site_changed.
    // (The pack in force names the interface words a bundle may keep: this one adds none the conversation has.)
    e.override({ roles: { assistantTurn: [{ kind: 'structure', css: 'main article.gone-after-redesign' }] } });
    const prompt = 'And the word periwinkle?';
    const r = await ask({ prompt, mode: 'continue', conversation_ref: first.body.conversation_ref });
    e.override(null);
    expect(r.status, JSON.stringify(r.body)).toBe(502);
    expect(r.body.error.code).toBe('PROVIDER_UI_CHANGED');
    const root = diagnosticsRoot(e.dataDir);
    const name = readdirSync(root).find((n) => n.startsWith(r.body.error.details.job_id as string))!;
    const files = Object.fromEntries(readdirSync(join(root, name)).map((f) => [f, readFileSync(join(root, name, f))]));
    expect(Object.keys(files).sort()).toEqual(['failure.json', 'page.html', 'screenshot.png']);

    const words = conversationWords([earlier, first.body.response as string, prompt], interfaceWords(e.site));
    expect(words).toEqual(expect.arrayContaining(['tangerine', 'marmalade', 'periwinkle', 'simulated']));
    // What page.html says: its texts and attribute values (tag names, classes, test ids and style sheets are the page's structure).
    const page = await agentPage().context().newPage();
    const said = await page.evaluate((html) => {
      const doc = new DOMParser().parseFromString(html, 'text/html');
      const parts: string[] = [];
      const walker = doc.createTreeWalker(doc, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.nodeType === Node.TEXT_NODE) {
          if (node.parentElement?.localName !== 'style') parts.push(node.textContent ?? '');
        }
        else for (const a of Array.from((node as Element).attributes)) if (!/^(class|id|data-testid)$/.test(a.name)) parts.push(a.value);
      }
      return parts.join(' ').toLowerCase();
    }, files['page.html']!.toString('utf8'));
    expect(said.length).toBeGreaterThan(100);
    expect(words.filter((w) => new RegExp(`(?<!\\p{L})${w}(?!\\p{L})`, 'u').test(said))).toEqual([]);
    // The manifest is ChatBridge's own words (its keys, the role it missed): none of the prompts'.
    const manifest = files['failure.json']!.toString('utf8').toLowerCase();
    expect(conversationWords([earlier, prompt, 'simulated'], []).filter((w) => manifest.includes(w))).toEqual([]);
    // The page's shape is still there for whoever fixes the pack.
    expect(files['page.html']!.toString()).toContain('data-testid="chat-input"');

    // The same conversation, captured as it is: the bundle's picture has far fewer edges.
    await page.goto((await e.service.store.conversation(first.body.conversation_ref))!.address);
    await page.getByText('tangerine').first().waitFor();
    const sharp = await edgeEnergy(page, await page.screenshot());
    const blurred = await edgeEnergy(page, files['screenshot.png']!);
    await page.close();
    expect(blurred).toBeLessThan(sharp * 0.5);
  }, 90_000);
});
