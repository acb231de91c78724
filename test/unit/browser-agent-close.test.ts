/**
 * An agent closed while its browser is still launching (the service stopping as an agent
 * starts or restarts, an agent removed meanwhile) closes that browser once it is up, and
 * starts none afterwards: no browser outlives its agent, writing into a profile folder
 * that may be gone by then. A host whose launch the test releases; no Chromium needed.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { PROVIDER_SITES } from '../../agents/providers/index.js';
import { BrowserAgent } from '../../agents/runtime/browser-agent.js';
import type { BrowserHost, BrowserSession } from '../../main/core/browser-host.js';

function gatedHost() {
  const launches: { release: () => void; closed: boolean }[] = [];
  const host: BrowserHost = {
    open: () =>
      new Promise<BrowserSession>((resolve) => {
        const launch = { closed: false, release: () => {} };
        launch.release = () => resolve({ page: {} as Page, onLost: () => {}, close: async () => void (launch.closed = true) });
        launches.push(launch);
      }),
    forget: async () => {},
  };
  return { host, launches };
}

describe('an agent closed while its browser launches', () => {
  it('closes the browser once it is up, and close() waits for that', async () => {
    const { host, launches } = gatedHost();
    const agent = new BrowserAgent('agt_1', () => PROVIDER_SITES.chatgpt, host);
    const started = agent.start();
    expect(launches).toHaveLength(1);
    let closed = false;
    const closing = agent.close().then(() => (closed = true));
    await Promise.resolve();
    expect(closed).toBe(false); // the launch is still under way
    launches[0]!.release();
    await closing;
    await started;
    expect(launches[0]!.closed).toBe(true);
    expect(agent.page()).toBeNull();
  });

  it('starts no browser once closed', async () => {
    const { host, launches } = gatedHost();
    const agent = new BrowserAgent('agt_1', () => PROVIDER_SITES.chatgpt, host);
    await agent.close();
    void agent.start();
    expect(launches).toHaveLength(0);
  });
});
