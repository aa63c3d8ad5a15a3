import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TOASTS, type Toaster, ToastProvider } from './toast-provider.tsx';
import { useToast } from './use-toast.ts';

function renderToasts() {
  const holder: { toast?: Toaster } = {};
  function Grab() {
    holder.toast = useToast();
    return null;
  }
  render(
    <ToastProvider>
      <Grab />
    </ToastProvider>,
  );
  const toast = holder.toast;
  if (!toast) throw new Error('no toaster');
  return toast;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('toasts (spec §9)', () => {
  it('keeps at most 20 at once, dropping the oldest', () => {
    const toast = renderToasts();
    act(() => {
      for (let i = 1; i <= 25; i++) toast.info(`Message ${i}`);
    });
    expect(screen.getAllByRole('alert')).toHaveLength(MAX_TOASTS);
    expect(screen.queryByText('Message 5')).toBeNull();
    expect(screen.getByText('Message 6')).toBeTruthy();
    expect(screen.getByText('Message 25')).toBeTruthy();
  });

  it('hides success after 2 s and errors after 4 s', async () => {
    vi.useFakeTimers();
    const toast = renderToasts();
    // Advances the clock, then lets the exit transition finish.
    const elapse = async (ms: number) => {
      await act(async () => {
        vi.advanceTimersByTime(ms);
      });
      await act(async () => {
        vi.advanceTimersByTime(300);
      });
    };
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
});
