import { useContext, useMemo } from 'react';
import { ToastContext, type Toaster } from './toast-provider.tsx';
import { durationOf, ToastTimingsContext } from './toast-timings.tsx';

/** The toaster, with the durations of the screen it is used in (ToastTimingsProvider). */
export function useToast(): Toaster {
  const toaster = useContext(ToastContext);
  const timings = useContext(ToastTimingsContext);
  if (!toaster) throw new Error('useToast must be used inside ToastProvider');
  return useMemo<Toaster>(
    () => ({
      show: (message, severity = 'info', durationMs = durationOf(timings, severity)) =>
        toaster.show(message, severity, durationMs),
      success: (message) => toaster.show(message, 'success', timings.success),
      error: (message) => toaster.show(message, 'error', timings.error),
      info: (message) => toaster.show(message, 'info', timings.default),
    }),
    [toaster, timings],
  );
}
