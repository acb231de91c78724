// @vitest-environment happy-dom
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DesktopBridge } from '../../renderer/src/desktop.js';
import { adminState, agent, fakeApi, renderPage } from './fixtures.js';

describe('Settings', () => {
  it('shows the address, port, data folder and version, and the log view', () => {
    renderPage('#/settings', adminState());
    expect(screen.getByText('http://127.0.0.1:4555/v1')).toBeTruthy();
    expect(screen.getByText('4555')).toBeTruthy();
    expect(screen.getByText('/home/me/.chatbridge')).toBeTruthy();
    expect(screen.getByText('0.1.0')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Logs' })).toBeTruthy();
    expect(screen.getByRole('group', { name: 'Show log entries' })).toBeTruthy();
    expect(screen.queryByText(/no log view yet/)).toBeNull();
  });
});

describe('Settings, retention', () => {
  const field = () => screen.getByLabelText('Remove prompts and answers after') as HTMLInputElement;

  it('shows the period and saves a new one, or none', async () => {
    const admin = adminState();
    const api = fakeApi(admin);
    api.updateSettings.mockImplementation(async (patch) => adminState([], { retention_days: patch.retention_days ?? null }));
    renderPage('#/settings', admin, [], api);
    expect(field().value).toBe('90');
    expect(screen.getByText(/removed 90 days after it finished/)).toBeTruthy();
    const save = within(field().closest('form')!).getByRole('button', { name: 'Save' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);

    fireEvent.change(field(), { target: { value: '30' } });
    fireEvent.click(save);
    await waitFor(() => expect(api.updateSettings).toHaveBeenCalledWith({ retention_days: 30 }));
    expect(await screen.findByText(/removed 30 days after it finished/)).toBeTruthy();

    // The page shows the new period as soon as the store has it; Save stays disabled until
    // the save that brought it has ended, and a click on it before then does nothing.
    fireEvent.change(field(), { target: { value: '' } });
    await waitFor(() => expect(save.disabled).toBe(false));
    fireEvent.click(save);
    await waitFor(() => expect(api.updateSettings).toHaveBeenLastCalledWith({ retention_days: null }));
    expect(await screen.findByText(/kept until you delete them/)).toBeTruthy();
  });

  it('refuses what is not a number of days, before asking the server', () => {
    const api = fakeApi(adminState());
    renderPage('#/settings', adminState(), [], api);
    for (const text of ['0', '3651', 'soon']) {
      fireEvent.change(field(), { target: { value: text } });
      expect(field().getAttribute('aria-invalid')).toBe('true');
      expect(screen.getByText(/whole number of days from 1 to 3650/)).toBeTruthy();
    }
    fireEvent.submit(field().closest('form')!);
    expect(api.updateSettings).not.toHaveBeenCalled();
  });
});

describe('Settings, streaming', () => {
  it('shows streaming off, and turns it on and off again', async () => {
    const admin = adminState();
    const api = fakeApi(admin);
    api.updateSettings.mockImplementation(async (patch) => adminState([], { streaming: patch.streaming ?? false }));
    renderPage('#/settings', admin, [], api);
    const toggle = () => screen.getByRole('checkbox', { name: /Stream chat answers/ }) as HTMLInputElement;
    expect(toggle().checked).toBe(false);
    expect(screen.getByText(/are refused \(400\)/)).toBeTruthy();
    fireEvent.click(toggle());
    await waitFor(() => expect(api.updateSettings).toHaveBeenCalledWith({ streaming: true }));
    expect(await screen.findByText(/closes its stream before the answer cancels the job/)).toBeTruthy();
    expect(toggle().checked).toBe(true);
    // The box is disabled while its change is saved: a person clicks again once it is not.
    await waitFor(() => expect(toggle().disabled).toBe(false));
    fireEvent.click(toggle());
    await waitFor(() => expect(api.updateSettings).toHaveBeenLastCalledWith({ streaming: false }));
  });
});

type DesktopState = Awaited<ReturnType<DesktopBridge['state']>>;

/** A bridge on window as the preload would expose it, answering from `desktop`. */
function fakeBridge(desktop: DesktopState) {
  const bridge = {
    watch: vi.fn(async () => ({})),
    setHost: vi.fn(async (agentId: string, host: 'view' | 'chrome') => {
      desktop.hosts[agentId] = host;
      return {};
    }),
    state: vi.fn(async () => structuredClone(desktop)),
    setOpenAtLogin: vi.fn(async (enabled: boolean) => {
      desktop.openAtLogin = enabled;
      return {};
    }),
  } satisfies DesktopBridge;
  window.chatbridgeDesktop = bridge;
  return bridge;
}

describe('Settings, desktop app', () => {
  afterEach(() => {
    delete window.chatbridgeDesktop;
  });
  const agents = [agent({ id: 'agt_1', name: 'chatgpt-1' }), agent({ id: 'agt_2', name: 'gemini-1', provider: 'gemini' })];
  const loginBox = () => screen.getByRole('checkbox', { name: /Start ChatBridge when I log in/ }) as HTMLInputElement;

  it('turns start-at-login on through the bridge and shows the new state', async () => {
    const bridge = fakeBridge({ openAtLogin: false, hosts: { agt_1: 'view', agt_2: 'chrome' } });
    renderPage('#/settings', adminState(agents));
    await waitFor(() => expect(loginBox().disabled).toBe(false));
    expect(loginBox().checked).toBe(false);
    fireEvent.click(loginBox());
    await waitFor(() => expect(bridge.setOpenAtLogin).toHaveBeenCalledWith(true));
    await waitFor(() => expect(loginBox().checked).toBe(true));
    expect(screen.queryByText(/settings of the desktop app/)).toBeNull();
  });

  it("shows each agent's browser and changes it with the agent's id", async () => {
    const bridge = fakeBridge({ openAtLogin: false, hosts: { agt_1: 'view', agt_2: 'chrome' } });
    renderPage('#/settings', adminState(agents));
    const chatgpt = () => screen.getByLabelText(/chatgpt-1/) as HTMLSelectElement;
    await waitFor(() => expect(chatgpt().value).toBe('view'));
    expect((screen.getByLabelText(/gemini-1/) as HTMLSelectElement).value).toBe('chrome');
    expect(within(chatgpt()).getByRole('option', { name: 'Google Chrome (its own profile)' })).toBeTruthy();
    expect(screen.getByText(/Google sign-in, refuse/)).toBeTruthy();
    expect(screen.getByText(/restarts that agent's browser/)).toBeTruthy();

    fireEvent.change(chatgpt(), { target: { value: 'chrome' } });
    await waitFor(() => expect(bridge.setHost).toHaveBeenCalledWith('agt_1', 'chrome'));
    await waitFor(() => expect(chatgpt().disabled).toBe(false));
    expect(chatgpt().value).toBe('chrome');
    expect(bridge.setHost).toHaveBeenCalledTimes(1);
  });

  it('says in plain words when the change fails, and shows the browser actually in use', async () => {
    const bridge = fakeBridge({ openAtLogin: false, hosts: { agt_1: 'view' } });
    bridge.setHost.mockRejectedValueOnce(new Error('Google Chrome is not installed'));
    renderPage('#/settings', adminState([agents[0]!]));
    const chatgpt = () => screen.getByLabelText(/chatgpt-1/) as HTMLSelectElement;
    await waitFor(() => expect(chatgpt().value).toBe('view'));
    fireEvent.change(chatgpt(), { target: { value: 'chrome' } });
    expect((await screen.findByRole('alert')).textContent).toBe(
      'The desktop app could not move chatgpt-1 to Google Chrome (its own profile): Google Chrome is not installed.',
    );
    await waitFor(() => expect(chatgpt().disabled).toBe(false));
    expect(chatgpt().value).toBe('view');
  });

  it('in a plain browser, says these are settings of the desktop app', () => {
    renderPage('#/settings', adminState(agents));
    expect(screen.getByText(/settings of the desktop app/)).toBeTruthy();
    expect(screen.getByText(/every agent runs in a Chromium profile of its own/)).toBeTruthy();
    expect(screen.queryByRole('checkbox', { name: /log in/ })).toBeNull();
    expect(screen.queryByRole('combobox')).toBeNull();
  });
});

describe('Settings, files in a prompt', () => {
  const MiB = 1024 * 1024;
  const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;
  const saveOf = (input: HTMLInputElement) => within(input.closest('form')!).getByRole('button', { name: 'Save' }) as HTMLButtonElement;

  it('shows the limits in MiB, empty at the most, and saves a lower one in bytes', async () => {
    const admin = adminState([], { attachment_max_total_bytes: 512 * 1000 });
    const api = fakeApi(admin);
    renderPage('#/settings', admin, [], api);
    const file = field('At most, a file');
    expect(file.value).toBe('');
    expect(file.placeholder).toBe('20 (the most)');
    // A limit the command line set in bytes reads back to the byte: nothing to save.
    const total = field("At most, a job's files together");
    expect(total.value).toBe('0.488281');
    expect(saveOf(total).disabled).toBe(true);

    fireEvent.change(file, { target: { value: '2.5' } });
    fireEvent.click(saveOf(file));
    await waitFor(() => expect(api.updateSettings).toHaveBeenCalledWith({ attachment_max_file_bytes: 2.5 * MiB }));
  });

  it('saves the most again when a lowered limit is emptied', async () => {
    const admin = adminState([], { attachment_max_file_bytes: 2.5 * MiB });
    const api = fakeApi(admin);
    renderPage('#/settings', admin, [], api);
    const file = field('At most, a file');
    expect(file.value).toBe('2.5');
    fireEvent.change(file, { target: { value: '' } });
    fireEvent.click(saveOf(file));
    await waitFor(() => expect(api.updateSettings).toHaveBeenCalledWith({ attachment_max_file_bytes: 20 * MiB }));
  });

  it('refuses a size that is not one, nothing, or over the most, before asking the server', () => {
    const api = fakeApi(adminState());
    renderPage('#/settings', adminState(), [], api);
    const total = field("At most, a job's files together");
    for (const text of ['0', '50.5', 'big', '-1']) {
      fireEvent.change(total, { target: { value: text } });
      expect(total.getAttribute('aria-invalid')).toBe('true');
      expect(screen.getByText(/size in MiB above 0 and at most 50/)).toBeTruthy();
    }
    fireEvent.submit(total.closest('form')!);
    expect(api.updateSettings).not.toHaveBeenCalled();
  });
});
