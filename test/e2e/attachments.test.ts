/**
 * A job's files in real Chromium, put through each simulated site's own file control by the
 * flow every agent runs (attach-files.ts), on each site's default layout: an image, a UTF-8
 * text with non-ASCII in its name and body, and a 300 KB random binary reach the answer byte
 * for byte (the simulated answer's `- attachment:` lines). An upload the page refuses, one
 * that never finishes within the (shortened) upload wait, and a cancel while a file uploads
 * each end the attempt with nothing typed or sent: the site's log shows the upload and no
 * send. The other layouts, and a page whose test ids and classes a release renamed and hashed
 * at once, are in the breadth (layouts/attachments.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { it } from 'vitest';
import { FLOW_LIMITS } from '../../agents/providers/flow-context.js';
import { attachmentLine, simulatedAnswer } from '../../agents/simulator/answer.js';
import { FILE_RULES } from '../../agents/simulator/file-rules.js';
import { SIM_SITES } from '../../agents/simulator/site-config.js';
import { AgentFailure } from '../../main/core/agent.js';
import { PROVIDERS } from '../../main/core/providers.js';
import { failure, received, useAttachmentAccounts } from '../support/attachment-account.js';
import { describeBeside } from '../support/beside.js';
import { until } from '../support/until.js';

const { account, file, filesReachThePage } = useAttachmentAccounts();

filesReachThePage('default');

describeBeside('a file the page refuses, one that never finishes, a cancel while it uploads: nothing typed or sent', () => {
  for (const provider of PROVIDERS) {
    it(`${SIM_SITES[provider].name}`, async (context) => {
      const { expect } = context;
      const a = await account(context, provider);
      const name = SIM_SITES[provider].name;

      // Refused: the site's own words, naming the file.
      const broken = file('broken[[sim:upload-fail]].txt', 'text/plain', Buffer.from('never kept'));
      const refused = await failure(a.run({ prompt: 'Refused [[sim:ms=40]]', attachments: [file('fine.txt', 'text/plain', Buffer.from('fine')), broken] }));
      expect(refused).toBeInstanceOf(AgentFailure);
      expect((refused as AgentFailure).kind).toBe('attachment_failed');
      expect((refused as AgentFailure).message).toBe(`${name} refused ${broken.filename}: "${FILE_RULES[provider].words.failed(broken.filename)}"; nothing was sent.`);
      expect(await a.composerText()).toBe('');
      expect(a.sim.log.uploads.find((u) => u.name === broken.filename)?.state).toBe('refused');

      // Never finishes within the upload wait (60 s in the product, 1.5 s here).
      const slow = file('slow[[sim:upload-ms=30000]].txt', 'text/plain', Buffer.from('slow'));
      const stuck = await failure(a.run({ prompt: 'Stuck [[sim:ms=40]]', attachments: [slow] }, { ...FLOW_LIMITS, uploadMs: 1_500 }));
      expect((stuck as AgentFailure).kind).toBe('attachment_failed');
      expect((stuck as AgentFailure).message).toBe(`${name} was still uploading "${slow.filename}" after 1.5 s; nothing was sent.`);
      expect(await a.composerText()).toBe('');

      // Cancelled while the file uploads: the attempt ends on the cancel's reason, as any cancel does.
      const cancel = new AbortController();
      const slower = file('slower[[sim:upload-ms=30000]].txt', 'text/plain', Buffer.from('slower'));
      const uploads = a.sim.log.uploads.length;
      const attempt = failure(a.run({ prompt: 'Cancelled [[sim:ms=40]]', attachments: [slower] }, FLOW_LIMITS, cancel.signal));
      await until(() => a.sim.log.uploads.length > uploads, 10_000, 'the upload to start');
      cancel.abort('cancelled');
      expect(await attempt).toBe('cancelled');
      expect(await a.composerText()).toBe('');

      expect(a.sim.log.sends).toEqual([]);
    }, 60_000);
  }
});

describeBeside('a paste card beside the job’s files', () => {
  it('ChatGPT: the long prompt the composer made a file is removed and pasted again as text; the job’s file stays attached and goes', async (context) => {
    const { expect } = context;
    const a = await account(context, 'chatgpt', { pasteToFileAt: 2_000 });
    const files = [file('Pasted markdown.md', 'text/markdown', Buffer.from('# the caller’s own file, named as a paste card is\n'))];
    const prompt = `Long one [[sim:ms=40]]\n\n${'line\twith a tab and  two spaces\n'.repeat(120)}end`;
    const result = await a.run({ prompt, attachments: files });
    expect(a.sim.log.sends).toHaveLength(1);
    expect(a.sim.log.sends[0]!.prompt).toBe(prompt);
    expect(a.sim.log.sends[0]!.attachment).toBeUndefined();
    expect(a.sim.log.sends[0]!.files!.map(attachmentLine)).toEqual(received(files).map(attachmentLine));
    expect(result.text).toBe(simulatedAnswer('ChatGPT', 'chatgpt', prompt, 1, received(files)));
  }, 60_000);
});

describeBeside('an upload menu that did not open', () => {
  it('Gemini: a press of its opener that the page did not take is made once more, and the file goes', async (context) => {
    const { expect } = context;
    const a = await account(context, 'gemini');
    // The first press of the opener goes nowhere, as a click a loaded machine ran out of time for.
    await a.page.addInitScript(() => {
      document.addEventListener(
        'click',
        (event) => {
          const opener = (event.target as Element | null)?.closest?.('[aria-label="Open upload file menu"]');
          if (!opener || sessionStorage.getItem('lost-press')) return;
          sessionStorage.setItem('lost-press', 'yes');
          event.stopImmediatePropagation();
        },
        true,
      );
    });
    const files = [file('notes.txt', 'text/plain', Buffer.from('notes'))];
    const prompt = 'Menu [[sim:ms=40]]';
    const result = await a.run({ prompt, attachments: files });
    expect(await a.page.evaluate(() => sessionStorage.getItem('lost-press'))).toBe('yes');
    expect(result.text).toBe(simulatedAnswer('Gemini', 'gemini', prompt, 1, received(files)));
    expect(a.sim.log.sends.map((s) => s.files!.map((f) => f.name))).toEqual([['notes.txt']]);
  }, 60_000);
});

describeBeside('files in a conversation continued', () => {
  for (const provider of ['claude', 'gemini'] as const) {
    it(`${SIM_SITES[provider].name}: a second turn takes its own files, the first turn's not sent again`, async (context) => {
      const { expect } = context;
      const a = await account(context, provider);
      const first = [file('first.txt', 'text/plain', Buffer.from('first'))];
      const answered = await a.run({ prompt: 'First [[sim:ms=40]]', attachments: first });
      const second = [file('second.csv', 'text/csv', Buffer.from('a;b\nä;ö\n'))];
      const prompt = 'Second [[sim:ms=40]]';
      const result = await a.run({ prompt, attachments: second }, FLOW_LIMITS, AbortSignal.timeout(45_000), answered.conversation);
      expect(result.conversation).toBe(answered.conversation);
      expect(result.text).toBe(simulatedAnswer(SIM_SITES[provider].name, provider, prompt, 2, received(second)));
      expect(a.sim.log.sends.map((s) => s.files!.map((f) => f.name))).toEqual([['first.txt'], ['second.csv']]);
    }, 60_000);
  }
});

describeBeside('the page’s own limits', () => {
  for (const provider of ['claude', 'deepseek'] as const) {
    it(`${SIM_SITES[provider].name}: one file too many, and one too large, each refused in the page's words naming it`, async (context) => {
      const { expect } = context;
      // Lowered, so no test needs a large file: 2 a message, 100 KiB a file.
      const limits = { perMessage: 2, maxBytes: 100 * 1024 };
      const a = await account(context, provider, { fileLimits: limits });
      const words = FILE_RULES[provider].words;
      const three = ['one.txt', 'two.txt', 'three.txt'].map((n) => file(n, 'text/plain', Buffer.from(n)));
      const tooMany = await failure(a.run({ prompt: 'Three [[sim:ms=40]]', attachments: three }));
      // The page uploads the three at once and refuses whichever reaches its server third: on a
      // loaded machine that is not always three.txt. The site's log says which it was.
      const refused = a.sim.log.uploads.filter((u) => u.state === 'refused').map((u) => u.name);
      expect(refused).toHaveLength(1);
      expect((tooMany as AgentFailure).message).toBe(`${SIM_SITES[provider].name} refused ${refused[0]}: "${words.tooMany(refused[0]!, 2)}"; nothing was sent.`);
      const large = file('large.pdf', 'application/pdf', randomBytes(100 * 1024 + 1));
      const tooLarge = await failure(a.run({ prompt: 'Large [[sim:ms=40]]', attachments: [large] }));
      expect((tooLarge as AgentFailure).message).toBe(`${SIM_SITES[provider].name} refused large.pdf: "${words.tooLarge('large.pdf', limits.maxBytes)}"; nothing was sent.`);
      expect(a.sim.log.sends).toEqual([]);
    }, 60_000);
  }
});
