import { createContext, type ReactNode } from 'react';
import type { ToastSeverity } from './toast-item.tsx';

/** How long toasts show, in ms, by severity ('default': info and warning). */
export interface ToastTimings {
  default: number;
  success: number;
  error: number;
}

/** The customer screens (customer-area spec): 4 s plain and error, 2 s success. */
export const CUSTOMER_TOASTS: ToastTimings = { default: 4_000, success: 2_000, error: 4_000 };

/** The admin and support screens (platform-area spec): 4 s default, 3 s success, 5 s error. */
export const HELP_DESK_TOASTS: ToastTimings = { default: 4_000, success: 3_000, error: 5_000 };

export const durationOf = (timings: ToastTimings, severity: ToastSeverity): number =>
  severity === 'success' ? timings.success : severity === 'error' ? timings.error : timings.default;

export const ToastTimingsContext = createContext<ToastTimings>(CUSTOMER_TOASTS);

/** The toasts raised inside `children` (a screen) show for `timings`. */
export function ToastTimingsProvider({ timings, children }: { timings: ToastTimings; children: ReactNode }) {
  return <ToastTimingsContext.Provider value={timings}>{children}</ToastTimingsContext.Provider>;
}
