/**
 * What every settings store must do (the SettingsStore port), as one suite each
 * implementation runs: test/store/sqlite-settings.test.ts, test/store/pg-settings.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { settingsFrom, type SettingsStore } from '../../main/settings/settings-store.js';
import { MAX_PAUSE_MS } from '../../main/contract/enumerations.js';

export interface SettingsUnderTest {
  store: SettingsStore;
  /** Another store on the same database, as another process would open it (loaded). */
  another(): Promise<SettingsStore>;
  close(): Promise<void>;
}

export function settingsContract(name: string, makeStore: () => Promise<SettingsUnderTest>): void {
  describe(`${name} settings (the SettingsStore contract)`, () => {
    let t: SettingsUnderTest;
    let store: SettingsStore;
    beforeEach(async () => {
      t = await makeStore();
      store = t.store;
    });
    afterEach(() => t.close());

    it('starts from the defaults', () => {
      expect(store.get()).toEqual(settingsFrom({}));
      expect(store.get()).toMatchObject({ globalCap: null, rotation: 'round_robin', paused: false, retentionDays: 90, streaming: false });
      expect(store.get()).toMatchObject({ attachmentMaxFileBytes: 20 * 1024 * 1024, attachmentMaxTotalBytes: 50 * 1024 * 1024 });
    });

    it('shows each change once its setter resolves, here and to another store on the database', async () => {
      await store.setGlobalCap(40);
      await store.setProviderCap('claude', 7);
      await store.setRotation('least_used');
      await store.setPaused(true);
      await store.setPauseMs(12_000);
      await store.setRetentionDays(null);
      await store.setStreaming(true);
      await store.setAttachmentLimit('file', 5_000_000);
      await store.setAttachmentLimit('total', 9_000_000);
      const expected = {
        globalCap: 40, rotation: 'least_used', paused: true, pauseMs: 12_000, retentionDays: null, streaming: true,
        attachmentMaxFileBytes: 5_000_000, attachmentMaxTotalBytes: 9_000_000,
      };
      expect(store.get()).toMatchObject(expected);
      expect(store.get().providerCaps).toMatchObject({ claude: 7, chatgpt: null });
      expect((await t.another()).get()).toEqual(store.get());
    });

    it('refuses a limit on files of no bytes, of a fraction, or over the contract\'s', async () => {
      await expect(store.setAttachmentLimit('file', 0)).rejects.toThrow(RangeError);
      await expect(store.setAttachmentLimit('file', 20 * 1024 * 1024 + 1)).rejects.toThrow(RangeError);
      await expect(store.setAttachmentLimit('total', 1.5)).rejects.toThrow(RangeError);
      await expect(store.setAttachmentLimit('total', 50 * 1024 * 1024 + 1)).rejects.toThrow(RangeError);
      expect(store.get().attachmentMaxFileBytes).toBe(20 * 1024 * 1024);
    });

    it("changes one provider's cap and keeps the others, even one set by another store", async () => {
      const other = await t.another();
      await store.setProviderCap('chatgpt', 3);
      await other.setProviderCap('gemini', 5);
      await store.setProviderCap('claude', 4);
      await store.setProviderCap('chatgpt', null);
      expect(store.get().providerCaps).toMatchObject({ chatgpt: null, claude: 4, gemini: 5, deepseek: null });
    });

    it("keeps the variants tenants may ask for, each variant's cap (merged with another store's) and the webhook deny-list, refusing what is malformed", async () => {
      expect(store.get()).toMatchObject({ tenantVariants: [], variantCaps: {} });
      const other = await t.another();
      await store.setTenantVariants(['chatgpt/thinking', 'claude/opus', 'chatgpt/thinking']);
      await store.setVariantCap('chatgpt/pro', 3);
      await other.setVariantCap('perplexity/research', 0);
      await store.setVariantCap('claude/opus', 10);
      await store.setVariantCap('claude/opus', null);
      expect(store.get()).toMatchObject({ tenantVariants: ['chatgpt/thinking', 'claude/opus'], variantCaps: { 'chatgpt/pro': 3, 'perplexity/research': 0 } });
      for (const bad of ['chatgpt', 'nosuch/pro', 'chatgpt/Pro', 'chatgpt/pro/x']) {
        await expect(store.setTenantVariants([bad])).rejects.toThrow(/A variant is named PROVIDER\/VARIANT/);
        await expect(store.setVariantCap(bad, 1)).rejects.toThrow(RangeError);
      }
      await expect(store.setVariantCap('chatgpt/pro', -1)).rejects.toThrow(/whole number of jobs/);
      await store.setWebhookDeny(['169.254.0.0/16', 'fd00::/8', '169.254.0.0/16']);
      await expect(store.setWebhookDeny(['example.com'])).rejects.toThrow(RangeError);
      expect(store.get().webhookDeny).toEqual(['169.254.0.0/16', 'fd00::/8']);
      expect((await t.another()).get()).toEqual(store.get());
    });

    it('refuses a pause or a retention out of range, and keeps what was set', async () => {
      await store.setPauseMs(5_000);
      await store.setRetentionDays(30);
      for (const bad of [-1, 1.5, MAX_PAUSE_MS + 1]) await expect(store.setPauseMs(bad)).rejects.toThrow(RangeError);
      for (const bad of [0, 2.5, 3_651]) await expect(store.setRetentionDays(bad)).rejects.toThrow(/from 1 to 3650/);
      expect(store.get()).toMatchObject({ pauseMs: 5_000, retentionDays: 30 });
      expect((await t.another()).get()).toMatchObject({ pauseMs: 5_000, retentionDays: 30 });
    });

    it('tells its listeners of its own changes, until they stop listening', async () => {
      let heard = 0;
      const stop = store.onChange(() => heard++);
      await store.setPaused(true);
      expect(heard).toBeGreaterThanOrEqual(1);
      stop();
      const before = heard;
      await store.setPaused(false);
      expect(heard).toBe(before);
    });

    it("reads another store's change on invalidate, and tells its listeners", async () => {
      expect(store.get().rotation).toBe('round_robin');
      const heard = new Promise<void>((resolve) => store.onChange(resolve));
      const other = await t.another();
      await other.setRotation('random');
      store.invalidate();
      await heard;
      expect(store.get().rotation).toBe('random');
    });
  });
}
