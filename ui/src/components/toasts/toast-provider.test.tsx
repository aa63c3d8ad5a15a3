import { Dialog } from '@mui/material';
import { act, render, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TOASTS, type Toaster, ToastProvider } from './toast-provider.tsx';
import { HELP_DESK_TOASTS, type ToastTimings, ToastTimingsProvider } from './toast-timings.tsx';
import { useToast } from './use-toast.ts';

function renderToasts(timings?: ToastTimings) {
  const holder: { toast?: Toaster } = {};
  function Grab() {
    holder.toast = useToast();
    return null;
  }
  render(
    <ToastProvider>
      {timings ? (
        <ToastTimingsProvider timings={timings}>
          <Grab />
        </ToastTimingsProvider>
      ) : (
        <Grab />
      )}
    </ToastProvider>,
  );
  const toast = holder.toast;
  if (!toast) throw new Error('no toaster');
  return toast;
}

afterEach(() => {
  vi.useRealTimers();
});

/** Advances the fake clock, then lets the exit transition finish. */
async function elapse(ms: number) {
  await act(async () => {
    vi.advanceTimersByTime(ms);
  });
  await act(async () => {
    vi.advanceTimersByTime(300);
  });
}

describe('toasts', () => {
  it('keeps at most 20 at once, dropping the oldest', async () => {
    const toast = renderToasts();
    act(() => {
      for (let i = 1; i <= 25; i++) toast.info(`Message ${i}`);
    });
    expect(await screen.findAllByRole('alert')).toHaveLength(MAX_TOASTS);
    expect(screen.queryByText('Message 5')).toBeNull();
    expect(screen.getByText('Message 6')).toBeTruthy();
    expect(screen.getByText('Message 25')).toBeTruthy();
  });

  it('stay in the accessibility tree while a dialog hides the rest of the page', async () => {
    const holder: { toast?: Toaster; open?: () => void } = {};
    function Page() {
      const [open, setOpen] = useState(false);
      holder.toast = useToast();
      holder.open = () => setOpen(true);
      return (
        <Dialog open={open}>
          <button type="button">Copy</button>
        </Dialog>
      );
    }
    const view = render(
      <ToastProvider>
        <Page />
      </ToastProvider>,
    );
    act(() => holder.toast?.success('Instance deployment initiated'));
    act(() => holder.open?.());
    await waitFor(() => expect(view.container.getAttribute('aria-hidden')).toBe('true'));
    act(() => holder.toast?.success('Password copied to clipboard'));
    expect(screen.getAllByRole('alert').map((alert) => alert.textContent)).toEqual([
      'Instance deployment initiated',
      'Password copied to clipboard',
    ]);
    expect(screen.getByRole('button', { name: 'Copy' })).toBeTruthy();
  });

  it('hides success after 2 s and errors after 4 s (customer screens)', async () => {
    vi.useFakeTimers();
    const toast = renderToasts();
    act(() => {
      toast.success('Saved');
      toast.error('Broken');
    });
    await elapse(1_600); // 1.9 s
    expect(screen.getByText('Saved')).toBeTruthy();
    await elapse(100); // 2.0 s, then 2.3 s
    expect(screen.queryByText('Saved')).toBeNull();
    expect(screen.getByText('Broken')).toBeTruthy();
    await elapse(1_300); // 3.6 s, then 3.9 s
    expect(screen.getByText('Broken')).toBeTruthy();
    await elapse(100); // 4.0 s, then 4.3 s
    expect(screen.queryByText('Broken')).toBeNull();
  });

  it('hides success after 3 s, plain after 4 s and errors after 5 s on the admin and support screens', async () => {
    vi.useFakeTimers();
    const toast = renderToasts(HELP_DESK_TOASTS);
    act(() => {
      toast.success('Response saved');
      toast.info('Loading');
      toast.error('Failed to save response');
    });
    await elapse(2_600); // 2.9 s
    expect(screen.getByText('Response saved')).toBeTruthy();
    await elapse(100); // 3.0 s, then 3.3 s
    expect(screen.queryByText('Response saved')).toBeNull();
    expect(screen.getByText('Loading')).toBeTruthy();
    await elapse(400); // 3.7 s, then 4.0 s
    await elapse(0); // then 4.3 s
    expect(screen.queryByText('Loading')).toBeNull();
    expect(screen.getByText('Failed to save response')).toBeTruthy();
    await elapse(600); // 4.6 s, then 4.9 s
    expect(screen.getByText('Failed to save response')).toBeTruthy();
    await elapse(100); // 5.0 s, then 5.3 s
    expect(screen.queryByText('Failed to save response')).toBeNull();
  });
});
