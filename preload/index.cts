/**
 * The dashboard's bridge to the main process, as `window.chatbridgeDesktop`. A sandboxed
 * preload can require nothing but `electron`, so it names its channels itself;
 * test/electron/preload.test.ts holds them equal to main/electron/ipc-contract.ts. It
 * exposes one function per call, never ipcRenderer itself.
 */
import type { Channel, Envelope, Request, Response } from '../main/electron/ipc-contract.js';

interface PreloadElectron {
  contextBridge: { exposeInMainWorld(key: string, api: unknown): void };
  ipcRenderer: { invoke(channel: string, payload: unknown): Promise<unknown> };
}

const { contextBridge, ipcRenderer } = require('electron') as PreloadElectron;

async function call<C extends Channel>(channel: C, request: Request<C>): Promise<Response<C>> {
  const answer = (await ipcRenderer.invoke(channel, request)) as Envelope;
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.result as Response<C>;
}

const desktop = {
  /** Shows the agent's page in a window, to watch it work. */
  watch: (agentId: string) => call('agents:watch', { agentId }),
  /** The browser an agent runs in, the app's own view or Chrome; applies at once (its browser restarts). */
  setHost: (agentId: string, host: Request<'agents:set-host'>['host']) => call('agents:set-host', { agentId, host }),
  state: () => call('desktop:state', {}),
  setOpenAtLogin: (enabled: boolean) => call('desktop:set-open-at-login', { enabled }),
};

export type DesktopBridge = typeof desktop;

contextBridge.exposeInMainWorld('chatbridgeDesktop', desktop);
