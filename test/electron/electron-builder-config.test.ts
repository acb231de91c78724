import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';

/**
 * Installers cannot be built here (electron-builder downloads Electron itself), so the
 * configuration is held to electron-builder's own schema and to what the app needs.
 */
const config = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'build/electron-builder.json'), 'utf8'));
const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8'));

describe('build/electron-builder.json', () => {
  it("passes electron-builder's own validation", async () => {
    const { validateConfiguration } = createRequire(import.meta.url)('app-builder-lib/out/util/config/config.js') as {
      validateConfiguration(config: unknown, debugLogger: { isEnabled: boolean }): Promise<void>;
    };
    await expect(validateConfiguration(structuredClone(config), { isEnabled: false })).resolves.toBeUndefined();
  });

  it("names the deb's maintainer as Debian requires: a name and an email address", () => {
    expect(config.linux.maintainer).toMatch(/^[^<>@]+ <[^<>@\s]+@[^<>@\s]+\.[a-z]{2,}>$/);
    // The same person as the package's author, when package.json names one.
    if (pkg.author) expect(config.linux.maintainer).toBe(typeof pkg.author === 'string' ? pkg.author : `${pkg.author.name} <${pkg.author.email}>`);
  });

  it('builds AppImage and deb, dmg, and nsis', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
  });

  it('turns RunAsNode off and asar integrity on, with the app loaded from the asar only', () => {
    expect(config.asar).toBe(true);
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
    });
  });

  it('rebuilds better-sqlite3 for Electron and unpacks it from the asar', () => {
    expect(config.npmRebuild).toBe(true);
    expect(config.asarUnpack).toContain('node_modules/better-sqlite3/**');
    expect(pkg.dependencies['better-sqlite3']).toBeDefined();
  });

  it('packages the Electron version the project installs, and electron only as a development-time package', () => {
    expect(config.electronVersion).toBe(pkg.optionalDependencies.electron);
    // electron-builder refuses electron among the app's runtime dependencies.
    expect(pkg.dependencies.electron).toBeUndefined();
  });

  it('starts the compiled main process and ships the files it loads at run time', () => {
    expect(config.extraMetadata.main).toBe('dist/main/electron/app.js');
    expect(existsSync(join(PACKAGE_ROOT, 'main/electron/app.ts'))).toBe(true);
    for (const needed of ['dist/main/**/*.js', 'dist/agents/**/*.js', 'dist/preload/index.cjs', 'dist/renderer/**', 'build/tray/*.png']) {
      expect(config.files).toContain(needed);
    }
    for (const state of ['idle', 'busy', 'paused', 'attention']) expect(existsSync(join(PACKAGE_ROOT, 'build/tray', `${state}.png`))).toBe(true);
    for (const file of [config.linux.icon, config.mac.entitlements]) expect(existsSync(join(PACKAGE_ROOT, file))).toBe(true);
  });
});
