// @vitest-environment happy-dom
import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../renderer/src/App.js';
import { createApi, LINK_REJECTED } from '../../renderer/src/api.js';
import { streamEvents } from '../../renderer/src/events.js';
import { useDashboard } from '../../renderer/src/store.js';
import { forgetToken, takeToken } from '../../renderer/src/token.js';
import './fixtures.js';

afterEach(() => vi.useRealTimers());

const sse = (...chunks: string[]) =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
        controller.close();
      },
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  );

describe('the admin token', () => {
  it('is taken from the link fragment, kept for the tab and removed from the address bar', () => {
    window.history.replaceState(null, '', '/#token=cba_secret-1');
    expect(takeToken()).toBe('cba_secret-1');
    expect(window.location.hash).toBe('');
    expect(window.location.href).not.toContain('cba_secret-1');
    expect(takeToken()).toBe('cba_secret-1');
    forgetToken();
    expect(takeToken()).toBeNull();
  });

  it('keeps the page a command-line link opens, without the token', () => {
    window.history.replaceState(null, '', '/#/agents/agt_1/login&token=cba_secret-2');
    expect(takeToken()).toBe('cba_secret-2');
    expect(window.location.hash).toBe('#/agents/agt_1/login');
    expect(window.location.href).not.toContain('cba_secret-2');
    forgetToken();
  });

  it('without one, the page says how to open the link serve prints', () => {
    useDashboard.setState({ api: null, rejected: false });
    render(<App />);
    expect(screen.getByRole('heading', { name: 'Open the dashboard with its link' })).toBeTruthy();
    expect(screen.getByText('dashboard: http://127.0.0.1:PORT/#token=cba_…')).toBeTruthy();
  });

  it('a refused one (the token was rotated) says the link changed and how to get the new one', () => {
    useDashboard.setState({ api: null, rejected: true });
    render(<App />);
    expect(screen.getByRole('heading', { name: 'The dashboard link changed: open the new one' })).toBeTruthy();
    expect(screen.getByText('npx chatbridge dashboard')).toBeTruthy();
  });

  it('an event stream ended by a rotation reconnects, gets 401 and asks for the new link instead of retrying', async () => {
    vi.useFakeTimers();
    const fetchFn = vi.fn<typeof fetch>(async () => sse('event: state\ndata: {"n":1}\n\n'));
    const unauthorized = vi.fn();
    const downs: number[] = [];
    streamEvents('cba_old', { onOpen: () => {}, onEvent: () => {}, onDown: (ms) => downs.push(ms), onUnauthorized: unauthorized }, fetchFn);
    await vi.waitFor(() => expect(downs).toEqual([1_000]));
    fetchFn.mockResolvedValue(Response.json({ error: { code: 'UNAUTHORIZED', message: 'x', request_id: 'r' } }, { status: 401 }));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(unauthorized).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetchFn).toHaveBeenCalledTimes(2);
  });

  it('goes with every API call as a bearer token; a 401 asks for a new link', async () => {
    const unauthorized = vi.fn();
    const fetchFn = vi.fn<typeof fetch>(async () => Response.json({ secret: 'whsec_x' }));
    const api = createApi('cba_tok', unauthorized, fetchFn);
    expect(await api.signingSecret()).toBe('whsec_x');
    const [url, init] = fetchFn.mock.calls[0]!;
    expect(url).toBe('/admin/v1/webhooks/secret');
    expect(new Headers(init!.headers).get('authorization')).toBe('Bearer cba_tok');

    fetchFn.mockResolvedValueOnce(Response.json({ error: { code: 'UNAUTHORIZED', message: 'x', request_id: 'r' } }, { status: 401 }));
    await expect(api.keys()).rejects.toThrow(LINK_REJECTED);
    expect(unauthorized).toHaveBeenCalledOnce();

    fetchFn.mockRejectedValueOnce(new TypeError('fetch failed'));
    await expect(api.keys()).rejects.toThrow(/not answering/);
  });

  it('goes with the event stream, which reconnects with growing pauses after a drop', async () => {
    vi.useFakeTimers();
    const fetchFn = vi.fn<typeof fetch>(async () => sse('event: state\ndata: {"n":1}\n\n: keep-alive\n\nevent: job\nda', 'ta: {"id":"job_1"}\n\n'));
    const events: [string, unknown][] = [];
    const downs: number[] = [];
    const stop = streamEvents(
      'cba_tok',
      { onOpen: () => {}, onEvent: (n, d) => events.push([n, d]), onDown: (ms) => downs.push(ms), onUnauthorized: () => {} },
      fetchFn,
    );
    await vi.waitFor(() => expect(downs).toEqual([1_000]));
    expect(events).toEqual([
      ['state', { n: 1 }],
      ['job', { id: 'job_1' }],
    ]);
    expect(new Headers(fetchFn.mock.calls[0]![1]!.headers).get('authorization')).toBe('Bearer cba_tok');

    fetchFn.mockRejectedValue(new TypeError('connection refused'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(downs).toEqual([1_000, 2_000]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(downs).toEqual([1_000, 2_000, 4_000]);
    stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetchFn).toHaveBeenCalledTimes(3);
  });
});
