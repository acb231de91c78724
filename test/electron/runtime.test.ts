import { describe, expect, it } from 'vitest';
import { findDesktopRuntime } from '../../main/electron/runtime.js';

const present = () => process.execPath; // any file that exists stands for the binary
const missing = () => {
  throw new Error('Electron failed to install correctly');
};

describe('findDesktopRuntime: the app, or headless serve', () => {
  it('needs a display on Linux', () => {
    expect(findDesktopRuntime({}, 'linux', present, () => false)).toEqual({ ok: false, reason: 'no display' });
    expect(findDesktopRuntime({ DISPLAY: ':0' }, 'linux', present, () => false)).toEqual({ ok: true, binary: process.execPath });
    expect(findDesktopRuntime({ WAYLAND_DISPLAY: 'wayland-0' }, 'linux', present, () => false).ok).toBe(true);
    expect(findDesktopRuntime({}, 'darwin', present, () => false).ok).toBe(true);
  });

  it('needs the electron package with its downloaded binary', () => {
    expect(findDesktopRuntime({ DISPLAY: ':0' }, 'linux', missing, () => false)).toMatchObject({ ok: false, reason: expect.stringMatching(/not installed/) });
    expect(findDesktopRuntime({}, 'win32', () => '/nowhere/electron.exe', () => false)).toMatchObject({ ok: false, reason: expect.stringMatching(/no Electron binary/) });
  });

  it('names every reason at once: no Electron download and no display', () => {
    expect(findDesktopRuntime({}, 'linux', missing, () => false)).toEqual({
      ok: false,
      reason: 'the electron package or its binary is not installed; no display',
    });
    expect(findDesktopRuntime({}, 'linux', () => '/nowhere/electron', () => false)).toEqual({ ok: false, reason: 'no Electron binary at /nowhere/electron; no display' });
  });

  it('needs better-sqlite3 built for Electron, and says how', () => {
    expect(findDesktopRuntime({ DISPLAY: ':0' }, 'linux', present, () => true)).toMatchObject({ ok: false, reason: expect.stringMatching(/desktop:rebuild/) });
  });

  it('on this machine: no Electron, so serve headless', () => {
    expect(findDesktopRuntime().ok).toBe(false);
  });
});
