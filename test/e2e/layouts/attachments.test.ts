/**
 * The breadth of attachments.test.ts: a job's files through each simulated site's own file
 * control on its other layouts (an image, a non-ASCII text and a 300 KB binary, byte for byte),
 * and on a page whose test ids and classes a release renamed and hashed at once, where a
 * refusal must still be read. attachments.test.ts runs the same on each site's default layout.
 */
import { it } from 'vitest';
import { simulatedAnswer } from '../../../agents/simulator/answer.js';
import { FILE_RULES } from '../../../agents/simulator/file-rules.js';
import { SIM_SITES } from '../../../agents/simulator/site-config.js';
import type { AgentFailure } from '../../../main/core/agent.js';
import { PROVIDERS } from '../../../main/core/providers.js';
import { failure, received, useAttachmentAccounts } from '../../support/attachment-account.js';
import { describeBeside } from '../../support/beside.js';

const { account, file, threeFiles, filesReachThePage } = useAttachmentAccounts();

filesReachThePage('others');

describeBeside('a job’s files on a rebuilt page (test ids renamed and classes hashed at once)', () => {
  for (const provider of PROVIDERS) {
    it(`${SIM_SITES[provider].name}: the files go in and a refusal is still read`, async (context) => {
      const { expect } = context;
      const a = await account(context, provider, { drift: ['testids', 'classes'] });
      const files = threeFiles();
      const prompt = 'Rebuilt page [[sim:ms=40]]';
      const result = await a.run({ prompt, attachments: files });
      expect(result.text).toBe(simulatedAnswer(SIM_SITES[provider].name, provider, prompt, 1, received(files)));
      const broken = file('broken[[sim:upload-fail]].txt', 'text/plain', Buffer.from('never kept'));
      const refused = await failure(a.run({ prompt: 'Refused [[sim:ms=40]]', attachments: [broken] }));
      expect((refused as AgentFailure).message).toBe(`${SIM_SITES[provider].name} refused ${broken.filename}: "${FILE_RULES[provider].words.failed(broken.filename)}"; nothing was sent.`);
      expect(a.sim.log.sends).toHaveLength(1);
    }, 60_000);
  }
});
