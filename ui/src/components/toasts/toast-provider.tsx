import { Box, Portal } from '@mui/material';
import {
  createContext,
  lazy,
  type ReactNode,
  Suspense,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import type { ToastSeverity } from './toast-item.tsx';

import { CUSTOMER_TOASTS, durationOf } from './toast-timings.tsx';

// Loaded with the first toast: most first visits raise none.
const ToastItem = lazy(async () => ({ default: (await import('./toast-item.tsx')).ToastItem }));

export interface Toaster {
  /** `durationMs`: how long it shows; by default what the screen's ToastTimings give its severity. */
  show(message: string, severity?: ToastSeverity, durationMs?: number): void;
  success(message: string): void;
  error(message: string): void;
  info(message: string): void;
}

interface Toast {
  id: number;
  message: string;
  severity: ToastSeverity;
  duration: number;
  open: boolean;
}

/** At most 20 at once. */
export const MAX_TOASTS = 20;

export const ToastContext = createContext<Toaster | null>(null);

/** Stacked toasts in the top-right corner, built from MUI Snackbar + Alert (toast-item.tsx). */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);

  const show = useCallback(
    (message: string, severity: ToastSeverity = 'info', duration = durationOf(CUSTOMER_TOASTS, severity)) => {
      const id = nextId.current++;
      setToasts((current) =>
        [...current, { id, message, severity, duration, open: true }].slice(-MAX_TOASTS),
      );
    },
    [],
  );

  const toaster = useMemo<Toaster>(
    () => ({
      show,
      success: (message) => show(message, 'success'),
      error: (message) => show(message, 'error'),
      info: (message) => show(message, 'info'),
    }),
    [show],
  );

  // An open dialog hides the rest of the page from assistive technology (aria-hidden on the other
  // children of <body>). Toasts raised from inside a dialog (a copied password) must still be heard,
  // so the stack lives in <body> itself and refuses that attribute.
  // (The portal mounts after the provider, so the observer starts from a callback ref.)
  const observer = useRef<MutationObserver | null>(null);
  const stack = useCallback((node: HTMLDivElement | null) => {
    observer.current?.disconnect();
    observer.current = null;
    if (!node) return;
    const keepAudible = () => {
      if (node.getAttribute('aria-hidden') === 'true') node.removeAttribute('aria-hidden');
    };
    keepAudible();
    observer.current = new MutationObserver(keepAudible);
    observer.current.observe(node, { attributes: true, attributeFilter: ['aria-hidden'] });
  }, []);
  useEffect(() => () => observer.current?.disconnect(), []);

  const close = (id: number) =>
    setToasts((current) => current.map((toast) => (toast.id === id ? { ...toast, open: false } : toast)));
  const remove = (id: number) => setToasts((current) => current.filter((toast) => toast.id !== id));

  return (
    <ToastContext.Provider value={toaster}>
      {children}
      <Portal>
        <Box
          ref={stack}
          sx={{
            position: 'fixed',
            // Top-right, just below the app bar so the account menu stays reachable.
            top: { xs: 64, sm: 72 },
            right: { xs: 8, sm: 16 },
            zIndex: (theme) => theme.zIndex.snackbar,
            display: 'flex',
            flexDirection: 'column',
            alignItems: 'flex-end',
            gap: 1,
            maxWidth: 'calc(100vw - 16px)',
            pointerEvents: 'none',
          }}
        >
          <Suspense fallback={null}>
            {toasts.map((toast) => (
              <ToastItem
                key={toast.id}
                message={toast.message}
                severity={toast.severity}
                open={toast.open}
                duration={toast.duration}
                onClose={() => close(toast.id)}
                onExited={() => remove(toast.id)}
              />
            ))}
          </Suspense>
        </Box>
      </Portal>
    </ToastContext.Provider>
  );
}
