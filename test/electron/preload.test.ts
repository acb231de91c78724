import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';
import { CHANNELS } from '../../main/electron/ipc-contract.js';

/**
 * Runs the compiled preload (tsconfig.electron.json; `npm test` builds it) the way a
 * sandboxed renderer does: a function of (require, process, exports, module) whose
 * `require` knows only 'electron'.
 */
function loadPreload() {
  const source = readFileSync(join(PACKAGE_ROOT, 'dist/preload/index.cjs'), 'utf8');
  const exposed: Record<string, unknown> = {};
  const invoked: [string, unknown][] = [];
  let answer: unknown = { ok: true, result: {} };
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => (exposed[key] = api) },
    ipcRenderer: {
      invoke: async (channel: string, payload: unknown) => {
        invoked.push([channel, payload]);
        return answer;
      },
    },
  };
  const require = (id: string) => {
    if (id !== 'electron') throw new Error(`A sandboxed preload cannot require ${id}`);
    return electron;
  };
  const exports = {};
  runInNewContext(`(function (require, process, exports, module) {${source}\n})`, {})(require, {}, exports, { exports });
  return { api: exposed.chatbridgeDesktop as Record<string, (...args: unknown[]) => Promise<unknown>>, invoked, setAnswer: (a: unknown) => (answer = a) };
}

describe('preload', () => {
  it('exposes one function per IPC channel and nothing of ipcRenderer', async () => {
    const { api, invoked } = loadPreload();
    expect(Object.keys(api).sort()).toEqual(['setHost', 'setOpenAtLogin', 'state', 'watch']);
    await api.watch!('agt_1');
    await api.setHost!('agt_1', 'chrome');
    await api.state!();
    await api.setOpenAtLogin!(true);
    expect(invoked.map(([c]) => c).sort()).toEqual([...CHANNELS].sort());
    expect(invoked[0]).toEqual(['agents:watch', { agentId: 'agt_1' }]);
    expect(invoked[1]).toEqual(['agents:set-host', { agentId: 'agt_1', host: 'chrome' }]);
  });

  it('returns results and turns error envelopes into thrown errors', async () => {
    const { api, setAnswer } = loadPreload();
    setAnswer({ ok: true, result: { openAtLogin: true, hosts: { agt_9: 'chrome' } } });
    expect(await api.state!()).toEqual({ openAtLogin: true, hosts: { agt_9: 'chrome' } });
    setAnswer({ ok: false, error: { code: 'invalid', message: 'agents:set-host: /host is invalid' } });
    await expect(api.setHost!('agt_9', 'firefox')).rejects.toThrow('agents:set-host: /host is invalid');
  });
});
