/**
 * Diagnostic bundles: what an agent's page looked like when an attempt failed, kept on
 * this machine only (never sent anywhere) for the person who looks into it. The agent
 * runtime writes them and the dashboard lists them; this is the layout both rely on:
 * `<data dir>/diagnostics/<job id>-<attempt>/` holding the files below.
 */
import { join } from 'node:path';

/** How many bundles are kept: the newest, across all jobs. */
export const DIAGNOSTICS_KEPT = 20;

export const DIAGNOSTIC_FILES = {
  /** The page as it was, blurred everywhere but its controls. */
  screenshot: 'screenshot.png',
  /** A copy of the page's DOM, every word that is not one of the site's interface words (and all script text) blanked out. */
  page: 'page.html',
  /** This manifest. */
  manifest: 'failure.json',
} as const;

export interface DiagnosticManifest {
  job_id: string;
  attempt: number;
  agent_id: string;
  provider: string;
  /** When the bundle was made (epoch ms). */
  at: number;
  failure: { kind: string; message: string };
  /** Where the page was: origin and path, never the query. */
  page_url: string | null;
  /** The selector pack in force: its version, the day it was checked, and a user's override file if one was merged. */
  pack: { version: number; checked: string; override: string | null };
  /** Per role, the cue that found it (its index, kind and selector), or null when none did. */
  cues: Record<string, { index: number; kind: string; css: string } | null>;
  /** The files of the bundle that were written (a screenshot can fail on a dead page). */
  files: string[];
}

export function diagnosticsRoot(dataDir: string): string {
  return join(dataDir, 'diagnostics');
}

/** A bundle's folder name: `<job id>-<attempt>`; job ids are `job_` + [A-Za-z0-9]. */
export function bundleName(jobId: string, attempt: number): string {
  return `${jobId}-${attempt}`;
}

export const BUNDLE_NAME = /^(job_[A-Za-z0-9]+)-(\d{1,3})$/;
