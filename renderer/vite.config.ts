import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  // Vite 8 transforms TSX with Oxc (its `esbuild` option is deprecated): React 17+ JSX runtime.
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    // The server's CSP allows scripts from 'self' only: no inlined module preload polyfill.
    modulePreload: { polyfill: false },
  },
});
