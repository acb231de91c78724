/**
 * `chatbridge --help` names every command, and each has its own `chatbridge COMMAND --help`,
 * printed without loading the service, its database engines or a browser.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_HELP, commandHelp, HELP } from '../../main/cli/help.js';
import { PACKAGE_ROOT } from '../../main/core/package-root.js';

describe('help', () => {
  it('covers every command the command line dispatches', () => {
    const dispatched = [...readFileSync(join(PACKAGE_ROOT, 'main/cli/main.ts'), 'utf8').matchAll(/case '([a-z]+)':/g)].map((m) => m[1]!);
    const commands = dispatched.filter((c) => c !== 'help');
    expect(commands.length).toBeGreaterThan(8);
    for (const command of commands) {
      expect(HELP, command).toMatch(new RegExp(`^  chatbridge (\\w+ \\| )?${command}\\b`, 'm'));
      expect(COMMAND_HELP[command], command).toBeDefined();
      expect(commandHelp(command), command).toMatch(new RegExp(`^chatbridge ${command}\\b`));
    }
  });

  it('is printed without loading the server, a database engine or a browser (0.1 s, not 0.5 s)', () => {
    // Preloaded into the command: on exit, the heavy packages it loaded (all CommonJS).
    const report = `import { createRequire } from 'node:module';
      process.on('exit', () => {
        const heavy = Object.keys(createRequire(process.cwd() + '/').cache).map((f) => /node_modules\\/(playwright-core|fastify|better-sqlite3|pg)\\//.exec(f)?.[1]).filter(Boolean);
        process.stderr.write('loaded: ' + [...new Set(heavy)].join(' ') + '\\n');
      });`;
    for (const args of [['--help'], ['keys', '--help'], ['serve', '--help']]) {
      const r = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(report)}`, 'bin/chatbridge.js', ...args], {
        cwd: PACKAGE_ROOT,
        encoding: 'utf8',
      });
      expect(r.stdout, args.join(' ')).toMatch(/^chatbridge /);
      expect(r.stderr, args.join(' ')).toBe('loaded: \n');
    }
  });
});
