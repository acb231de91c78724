/**
 * After every dashboard test, in every file: the rendered app unmounted and the page's
 * address and session storage as a fresh window has them. A setup file, not an afterEach
 * in fixtures.tsx, because the files share a process and a module registers its hooks once.
 */
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => {
  cleanup();
  window.location.hash = '';
  window.sessionStorage.clear();
});
