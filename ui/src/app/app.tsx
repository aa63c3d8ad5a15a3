import type { Schemas } from '@berth/openapi';
import type { QueryClient } from '@tanstack/react-query';
import { lazy, useState } from 'react';
import { ApiClientProvider } from '../api/api-client-provider.tsx';
import { QueryLayer, QueryLayerContext } from '../api/query-layer.ts';
import { ToastProvider } from '../components/toasts/toast-provider.tsx';
import { SessionProvider } from '../features/session/session-provider.tsx';
import { type Integrations, IntegrationsContext } from '../platform/integrations.ts';
import type { Platform } from '../platform/platform.ts';
import { PlatformContext } from '../platform/platform-context.ts';
import { ServerRenderProvider, type ServerRenderState } from '../platform/server-render.tsx';
import { ColorModeProvider } from '../theme/color-mode-provider.tsx';
import { AppRoutes } from './app-routes.tsx';

const DEFAULT_INTEGRATIONS: Integrations = {
  openEventSource: (url) => new EventSource(url),
  // Loaded with the first form that shows the bot check (only when the server has a site key).
  BotCheckWidget: lazy(async () => ({
    default: (await import('../features/bot-check/turnstile-widget.tsx')).TurnstileWidget,
  })),
  // Loaded by /api-reference only: Scalar and the public OpenAPI document are its own chunk.
  ApiReferenceViewer: lazy(() => import('../features/api-reference/scalar-reference.tsx')),
};

/**
 * The whole Berth UI. The host shell wraps it in a React Router router (browser or hash).
 * `integrations` replaces the browser's EventSource, the bot-check widget or the API reference viewer (tests).
 * `publicConfig` is GET /api/config's answer when the host has it already (a page the server rendered
 * with it), so the first render needs no request. `serverRender`: what the server rendered a signed-in
 * page with (its data, clock and time zone), for the hydration. `queryClient` replaces the app's own
 * (the server's render, which collects the queries a page makes).
 */
export function App({
  platform,
  integrations,
  publicConfig,
  serverRender,
  queryClient: givenQueryClient,
}: {
  platform: Platform;
  integrations?: Partial<Integrations>;
  publicConfig?: Schemas['PublicConfig'];
  serverRender?: ServerRenderState;
  queryClient?: QueryClient;
}) {
  const [queries] = useState(() => new QueryLayer({ publicConfig, serverRender }, givenQueryClient));
  const [seams] = useState<Integrations>(() => ({ ...DEFAULT_INTEGRATIONS, ...integrations }));
  return (
    <ServerRenderProvider info={serverRender?.info ?? null}>
      <PlatformContext.Provider value={platform}>
        <IntegrationsContext.Provider value={seams}>
          <ColorModeProvider>
            <ToastProvider>
              <QueryLayerContext.Provider value={queries}>
                <ApiClientProvider platform={platform}>
                  <SessionProvider tokenStore={platform.tokenStore}>
                    <AppRoutes />
                  </SessionProvider>
                </ApiClientProvider>
              </QueryLayerContext.Provider>
            </ToastProvider>
          </ColorModeProvider>
        </IntegrationsContext.Provider>
      </PlatformContext.Provider>
    </ServerRenderProvider>
  );
}
