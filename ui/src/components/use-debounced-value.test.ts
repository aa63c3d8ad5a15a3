import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useDebouncedValue } from './use-debounced-value.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('useDebouncedValue (search 300 ms)', () => {
  it('follows the value once it has not changed for the delay', () => {
    vi.useFakeTimers();
    const { result, rerender } = renderHook(({ value }) => useDebouncedValue(value, 300), {
      initialProps: { value: '' },
    });
    rerender({ value: 'o' });
    act(() => {
      vi.advanceTimersByTime(200);
    });
    rerender({ value: 'orders' });
    act(() => {
      vi.advanceTimersByTime(299);
    });
    expect(result.current).toBe('');
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(result.current).toBe('orders');
  });
});
