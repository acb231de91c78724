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
    rolldownOptions: {
      output: {
        // React in a chunk of its own: it changes with upgrades, not with each change of the
        // dashboard. The charts (recharts) come with the Usage page, loaded when opened.
        codeSplitting: { groups: [{ name: 'react', test: /[\\/]node_modules[\\/](react|react-dom|scheduler)[\\/]/ }] },
      },
    },
  },
});
