import publicApi from '@berth/openapi/openapi.v1.json';
import { ApiReferenceReact } from '@scalar/api-reference-react';
import { useMemo } from 'react';
import type { ApiReferenceViewerProps } from '../../app/integrations.ts';

/**
 * Scalar's renderer of the public OpenAPI document (openapi/openapi.v1.json, the same document the server
 * answers at /api/v1/openapi.json). Its own chunk: only /api-reference loads it. Everything it needs is
 * bundled: no web fonts, no telemetry, no AI agent or MCP, no "try it" client (which would go through
 * Scalar's proxy), so it works offline.
 */
export default function ScalarReference({ theme, serverUrl }: ApiReferenceViewerProps) {
  const configuration = useMemo(
    () => ({
      content: publicApi,
      servers: [{ url: serverUrl, description: 'This Berth server' }],
      forceDarkModeState: theme,
      hideDarkModeToggle: true,
      withDefaultFonts: false,
      telemetry: false,
      hideClientButton: true,
      defaultOpenAllTags: true,
      hideTestRequestButton: true,
      showDeveloperTools: 'never' as const,
      agent: { disabled: true },
      mcp: { disabled: true },
      customCss:
        '.scalar-app { --scalar-font: inherit; --scalar-font-code: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }',
    }),
    [theme, serverUrl],
  );
  return <ApiReferenceReact configuration={configuration} />;
}
