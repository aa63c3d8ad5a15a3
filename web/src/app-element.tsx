import type { Schemas } from '@berth/openapi';
import { App, type Platform, type ServerRenderState } from '@berth/ui';
import type { QueryClient } from '@tanstack/react-query';
import { type ReactNode, StrictMode } from 'react';
import { webPlatform } from './web-platform.ts';

export interface AppElementOptions {
  /** The server's settings the page was rendered with. */
  publicConfig?: Schemas['PublicConfig'];
  /** What the server rendered a signed-in page with (its data, clock and time zone). */
  serverRender?: ServerRenderState;
  /** The host: the browser's, or the server's own render (prerender-entry.tsx). */
  platform?: Platform;
  /** The server's render, which collects the queries a page makes. */
  queryClient?: QueryClient;
}

/**
 * The whole web app inside `router`: the browser's router in main.tsx, a static one when the build or
 * the server renders a page (prerender-entry.tsx). One function, so both render the same tree and the
 * rendered HTML hydrates.
 */
export function appElement(
  router: (app: ReactNode) => ReactNode,
  options: AppElementOptions = {},
): ReactNode {
  const { platform = webPlatform, ...rest } = options;
  return (
    <StrictMode>
      {router(
        <App
          platform={platform}
          publicConfig={rest.publicConfig}
          serverRender={rest.serverRender}
          queryClient={rest.queryClient}
        />,
      )}
    </StrictMode>
  );
}
