import type { Schemas } from '@berth/openapi';
import { App } from '@berth/ui';
import { type ReactNode, StrictMode } from 'react';
import { webPlatform } from './web-platform.ts';

/**
 * The whole web app inside `router`: the browser's router in main.tsx, a static one when the build
 * prerenders the public pages (prerender-entry.tsx). One function, so both render the same tree and
 * the prerendered HTML hydrates. `publicConfig`: the server's settings the page was rendered with.
 */
export function appElement(
  router: (app: ReactNode) => ReactNode,
  publicConfig?: Schemas['PublicConfig'],
): ReactNode {
  return <StrictMode>{router(<App platform={webPlatform} publicConfig={publicConfig} />)}</StrictMode>;
}
