/** `chatbridge --help` names every command, and each has its own `chatbridge COMMAND --help`. */
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
});
