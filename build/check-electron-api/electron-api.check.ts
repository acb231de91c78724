/**
 * Compiles only where the `electron` package (with its types) is installed: fails when
 * Electron's API no longer offers what main/electron/electron-api.ts declares.
 */
import type { ElectronApi } from '../../main/electron/electron-api.js';

export const electronSatisfiesOurDeclaration: ElectronApi = {} as typeof import('electron');
