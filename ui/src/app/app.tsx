import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiClientProvider } from '../api/api-client-provider.tsx';
import { ApiRequestError } from '../api/api-error.ts';
import { ToastProvider } from '../components/toasts/toast-provider.tsx';
import { SessionProvider } from '../features/session/session-provider.tsx';
import type { Platform } from '../platform/platform.ts';
import { ColorModeProvider } from '../theme/color-mode-provider.tsx';
import { AppRoutes } from './app-routes.tsx';

function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        // Client errors (4xx) will not change on a retry; server and network errors get one more try.
        retry: (failures, error) => !(error instanceof ApiRequestError && error.status < 500) && failures < 1,
      },
    },
  });
}

/** The whole Berth UI. The host shell wraps it in a React Router router (browser or hash). */
export function App({ platform }: { platform: Platform }) {
  const [queryClient] = useState(createQueryClient);
  return (
    <ColorModeProvider>
      <ToastProvider>
        <QueryClientProvider client={queryClient}>
          <ApiClientProvider platform={platform}>
            <SessionProvider tokenStore={platform.tokenStore}>
              <AppRoutes />
            </SessionProvider>
          </ApiClientProvider>
        </QueryClientProvider>
      </ToastProvider>
    </ColorModeProvider>
  );
}
