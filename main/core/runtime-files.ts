import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What a running server leaves in its data dir, so the command line can find it. */
export interface ServerInfo {
  pid: number;
  url: string;
}

const SERVER_FILE = 'server.json';
const ADMIN_TOKEN_FILE = 'admin-token';

export function readServerInfo(dataDir: string): ServerInfo | null {
  try {
    const info = JSON.parse(readFileSync(join(dataDir, SERVER_FILE), 'utf8')) as ServerInfo;
    return isAlive(info.pid) ? info : null;
  } catch {
    return null;
  }
}

export function writeServerInfo(dataDir: string, info: ServerInfo): void {
  const tmp = join(dataDir, `${SERVER_FILE}.${process.pid}`);
  writeFileSync(tmp, JSON.stringify(info), { mode: 0o600 });
  renameSync(tmp, join(dataDir, SERVER_FILE));
}

/** Removes server.json if it is `pid`'s (this process's unless told), or stale. */
export function removeServerInfo(dataDir: string, pid = process.pid): void {
  const info = readServerInfo(dataDir);
  if (!info || info.pid === pid) rmSync(join(dataDir, SERVER_FILE), { force: true });
}

/** The dashboard's token: made once, kept in the data dir readable by its owner only. */
export function adminToken(dataDir: string): string {
  const file = join(dataDir, ADMIN_TOKEN_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = newAdminToken();
  writeFileSync(file, token, { mode: 0o600, flag: 'wx' });
  return token;
}

/** Replaces the dashboard's token (the old link stops working); returns the new one. */
export function rotateAdminToken(dataDir: string): string {
  const token = newAdminToken();
  const tmp = join(dataDir, `${ADMIN_TOKEN_FILE}.${process.pid}`);
  writeFileSync(tmp, token, { mode: 0o600 });
  renameSync(tmp, join(dataDir, ADMIN_TOKEN_FILE));
  return token;
}

const newAdminToken = () => `cba_${randomBytes(24).toString('base64url')}`;

/** The dashboard's token if the data dir has one; unlike `adminToken`, never makes one. */
export function readAdminToken(dataDir: string): string | null {
  try {
    return readFileSync(join(dataDir, ADMIN_TOKEN_FILE), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const DEVICE_ID_FILE = 'device-id';

/**
 * This data dir's id among the devices sharing a database: made once, so an instance that
 * restarts is the same device (its own unfinished attempts are its to re-queue at start).
 */
export function deviceId(dataDir: string): string {
  const file = join(dataDir, DEVICE_ID_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const id = `dev_${randomBytes(12).toString('base64url')}`;
  writeFileSync(file, id, { mode: 0o600, flag: 'wx' });
  return id;
}
