import type { CDPSession, Page } from 'playwright-core';
import type { AgentScreen } from '../../main/core/agent-control.js';
import type { ViewFrame, ViewInput } from '../../main/core/screen.js';

/** Pictures no larger than the agents' viewport; quality 70 keeps a frame near 100 KB. */
const CAST = { format: 'jpeg', quality: 70, maxWidth: 1280, maxHeight: 900 } as const;

/**
 * An agent's page for a person who has no window onto it (headless `serve`): Chromium's
 * screencast of the page as JPEG frames, and the person's clicks, wheel and keys played
 * into it. One screencast per page, shared by every watcher, and only while someone watches.
 */
export class PageScreen implements AgentScreen {
  private readonly watchers = new Map<(frame: ViewFrame) => void, () => void>();
  private latest: ViewFrame | null = null;
  private cast: Promise<CDPSession | null> | null = null;

  constructor(readonly page: Page) {
    page.once('close', () => {
      for (const end of [...this.watchers.values()]) end();
      this.watchers.clear();
    });
  }

  watch(onFrame: (frame: ViewFrame) => void, onEnd: () => void): () => void {
    if (this.page.isClosed()) {
      onEnd();
      return () => {};
    }
    this.watchers.set(onFrame, onEnd);
    if (this.latest) onFrame(this.latest);
    this.cast ??= this.startCast();
    return () => {
      this.watchers.delete(onFrame);
      if (this.watchers.size === 0) this.stopCast();
    };
  }

  async input(event: ViewInput): Promise<void> {
    const { mouse, keyboard } = this.page;
    switch (event.type) {
      case 'click':
        return mouse.click(event.x, event.y);
      case 'scroll':
        await mouse.move(event.x, event.y);
        return mouse.wheel(event.dx, event.dy);
      case 'key':
        return keyboard.press(event.key);
      case 'text':
        return keyboard.insertText(event.text);
    }
  }

  private async startCast(): Promise<CDPSession | null> {
    try {
      const cdp = await this.page.context().newCDPSession(this.page);
      cdp.on('Page.screencastFrame', ({ data, metadata, sessionId }) => {
        // Chromium sends the next frame only after this one is acknowledged.
        cdp.send('Page.screencastFrameAck', { sessionId }).catch(() => {});
        this.latest = { jpeg: data, width: metadata.deviceWidth, height: metadata.deviceHeight };
        for (const watcher of this.watchers.keys()) watcher(this.latest);
      });
      await cdp.send('Page.startScreencast', CAST);
      return cdp;
    } catch {
      // The page closed (its browser is restarting): watchers see no frames; the agent's state says why.
      return null;
    }
  }

  private stopCast(): void {
    const cast = this.cast;
    this.cast = null;
    this.latest = null;
    void cast?.then((cdp) => cdp?.detach()).catch(() => {});
  }
}
