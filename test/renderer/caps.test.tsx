// @vitest-environment happy-dom
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../renderer/src/api.js';
import { adminState, agent, renderPage } from './fixtures.js';

describe('Caps and rotation', () => {
  it('lists every provider, and says agent caps come once there are agents', () => {
    renderPage('#/caps', adminState());
    for (const name of ['ChatGPT', 'Claude', 'Gemini', 'DeepSeek', 'Qwen', 'Perplexity']) expect(screen.getByLabelText(name)).toBeTruthy();
    expect(screen.getByText(/No agents yet: once you add an account/)).toBeTruthy();
    expect((screen.getByLabelText(/Round robin/) as HTMLInputElement).checked).toBe(true);
  });

  it('saves the global, provider and agent caps, empty meaning no cap', async () => {
    const state = adminState([agent()], { provider_caps: { chatgpt: 5, claude: null, gemini: null, deepseek: null, qwen: null, perplexity: null } });
    const { api } = renderPage('#/caps', state);
    fireEvent.change(screen.getByLabelText('All agents together'), { target: { value: '20' } });
    fireEvent.submit(screen.getByLabelText('All agents together').closest('form')!);
    await waitFor(() => expect(api.updateSettings).toHaveBeenCalledWith({ global_cap: 20 }));

    fireEvent.change(screen.getByLabelText('ChatGPT'), { target: { value: '' } });
    fireEvent.submit(screen.getByLabelText('ChatGPT').closest('form')!);
    await waitFor(() => expect(api.updateSettings).toHaveBeenCalledWith({ provider_caps: { chatgpt: null } }));

    fireEvent.change(screen.getByLabelText('chatgpt-1 (ChatGPT)'), { target: { value: '3' } });
    fireEvent.submit(screen.getByLabelText('chatgpt-1 (ChatGPT)').closest('form')!);
    await waitFor(() => expect(api.updateAgent).toHaveBeenCalledWith('agt_1', { cap_per_hour: 3 }));
  });

  it('refuses what is not a number in plain words, and shows the server refusal', async () => {
    const { api } = renderPage('#/caps', adminState());
    fireEvent.change(screen.getByLabelText('All agents together'), { target: { value: 'ten' } });
    expect(screen.getByText('Enter a whole number, or leave it empty for no cap.')).toBeTruthy();
    api.updateSettings.mockRejectedValueOnce(new ApiError(400, 'INVALID_REQUEST', 'global_cap must be at most 1000000.'));
    fireEvent.change(screen.getByLabelText('All agents together'), { target: { value: '9999999' } });
    fireEvent.submit(screen.getByLabelText('All agents together').closest('form')!);
    expect((await screen.findByRole('alert')).textContent).toBe('global_cap must be at most 1000000.');
  });

  it('changes the rotation strategy', async () => {
    const { api } = renderPage('#/caps', adminState());
    fireEvent.click(screen.getByLabelText(/Least used/));
    await waitFor(() => expect(api.updateSettings).toHaveBeenCalledWith({ rotation: 'least_used' }));
  });
});
