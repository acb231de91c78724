import type { AdminState, SettingsPatch } from '../../contract/admin/state.js';
import { EVERY_ACCOUNT } from '../../core/jobs.js';
import type { Provider } from '../../core/providers.js';
import type { SettingsStore } from '../../settings/settings-store.js';
import type { StatusReport } from '../status-report.js';
import type { AgentsConsole } from './agents.js';

/** The dashboard's overview (version, profile, settings, agents, status) and the settings it changes. */
export class StateConsole {
  constructor(
    private readonly deps: {
      version: string;
      dataDir: string;
      profile: { name: AdminState['profile'] };
      settings: SettingsStore;
      agents: AgentsConsole;
      report: StatusReport;
    },
  ) {}

  async read(): Promise<AdminState> {
    const s = this.deps.settings.get();
    return {
      version: this.deps.version,
      profile: this.deps.profile.name,
      data_dir: this.deps.dataDir,
      settings: {
        paused: s.paused,
        rotation: s.rotation,
        global_cap: s.globalCap,
        provider_caps: s.providerCaps,
        retention_days: s.retentionDays,
        pause_ms: s.pauseMs,
        streaming: s.streaming,
        attachment_max_file_bytes: s.attachmentMaxFileBytes,
        attachment_max_total_bytes: s.attachmentMaxTotalBytes,
      },
      agents: this.deps.agents.list(),
      status: await this.deps.report.status(EVERY_ACCOUNT),
    };
  }

  /** The service hears each change (SettingsStore.onChange) and wakes the scheduler. */
  async updateSettings(patch: SettingsPatch): Promise<AdminState> {
    const { settings } = this.deps;
    if (patch.paused !== undefined) await settings.setPaused(patch.paused);
    if (patch.rotation !== undefined) await settings.setRotation(patch.rotation);
    if (patch.global_cap !== undefined) await settings.setGlobalCap(patch.global_cap);
    if (patch.retention_days !== undefined) await settings.setRetentionDays(patch.retention_days);
    if (patch.pause_ms !== undefined) await settings.setPauseMs(patch.pause_ms);
    if (patch.streaming !== undefined) await settings.setStreaming(patch.streaming);
    if (patch.attachment_max_file_bytes !== undefined) await settings.setAttachmentLimit('file', patch.attachment_max_file_bytes);
    if (patch.attachment_max_total_bytes !== undefined) await settings.setAttachmentLimit('total', patch.attachment_max_total_bytes);
    for (const [provider, cap] of Object.entries(patch.provider_caps ?? {})) {
      if (cap !== undefined) await settings.setProviderCap(provider as Provider, cap);
    }
    return this.read();
  }
}
