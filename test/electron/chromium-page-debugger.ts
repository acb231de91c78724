/**
 * What `webContents.debugger` is to Electron, made from a real Chromium: a browser over
 * `--remote-debugging-pipe`, one page target, and a flat session attached to it. Commands
 * without a session id go to that page, events of the page come with '' as their session,
 * exactly as Electron's Debugger behaves, so the CDP transport is tested for real without
 * Electron.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { findBrowser } from '../../agents/browser/find-browser.js';
import type { PageDebugger } from '../../main/electron/cdp-transport.js';

type Message = { id?: number; method?: string; params?: Record<string, unknown>; sessionId?: string; result?: unknown; error?: { message: string } };

export interface ChromiumPage {
  debugger: PageDebugger;
  /** Closes the page target, as closing an Electron view does. */
  closePage(): Promise<void>;
  stop(): Promise<void>;
}

export async function startChromiumPage(): Promise<ChromiumPage> {
  const profile = mkdtempSync(join(tmpdir(), 'cb-cdp-'));
  const child: ChildProcess = spawn(
    findBrowser(),
    ['--headless=new', '--remote-debugging-pipe', `--user-data-dir=${profile}`, '--no-first-run', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), 'about:blank'],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
  );
  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const eventListeners: ((m: Message) => void)[] = [];
  let buffer = '';
  fromBrowser.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\0'); end >= 0; end = buffer.indexOf('\0')) {
      const m = JSON.parse(buffer.slice(0, end)) as Message;
      buffer = buffer.slice(end + 1);
      // One task per message, as Electron dispatches them: what a reply sets off runs before the next event.
      setImmediate(() => {
        if (m.id !== undefined) {
          const p = pending.get(m.id);
          pending.delete(m.id);
          if (m.error) p?.reject(new Error(m.error.message));
          else p?.resolve(m.result);
        } else for (const l of eventListeners) l(m);
      });
    }
  });
  const send = (method: string, params: object = {}, sessionId?: string): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      toBrowser.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });

  const { targetId } = (await send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
  const { sessionId: root } = (await send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
  const detachListeners: ((reason: string) => void)[] = [];
  let attached = true;
  eventListeners.push((m) => {
    if (m.method === 'Target.detachedFromTarget' && m.params?.sessionId === root && attached) {
      attached = false;
      for (const l of detachListeners) l('target closed');
    }
  });

  const pageDebugger: PageDebugger = {
    sendCommand: (method, params, sessionId) => send(method, params ?? {}, sessionId || root),
    onMessage: (listener) =>
      eventListeners.push((m) => {
        // The page's own events, and those of the sessions it auto-attached (never the browser's).
        if (!m.method || !m.sessionId) return;
        listener(m.method, m.params ?? {}, m.sessionId === root ? '' : m.sessionId);
      }),
    onDetach: (listener) => detachListeners.push(listener),
    detach: () => {
      if (!attached) return;
      attached = false;
      void send('Target.detachFromTarget', { sessionId: root }).catch(() => {});
    },
  };
  const exited = new Promise((res) => child.once('exit', res));
  return {
    debugger: pageDebugger,
    closePage: async () => {
      await send('Target.closeTarget', { targetId });
    },
    stop: async () => {
      // Closed the browser's own way, so its helper processes are gone before the profile is removed.
      const kill = setTimeout(() => child.kill('SIGKILL'), 3_000);
      void send('Browser.close').catch(() => {});
      await exited;
      clearTimeout(kill);
      rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}
