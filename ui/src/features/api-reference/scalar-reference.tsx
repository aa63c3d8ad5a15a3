import publicApi from '@berth/openapi/openapi.v1.json';
import { ApiReferenceReact } from '@scalar/api-reference-react';
import '@scalar/api-reference-react/style.css';
import { useMemo } from 'react';
import type { ApiReferenceViewerProps } from '../../app/integrations.ts';

/**
 * Our fonts, and HTTP method colours that meet WCAG AA contrast (4.5:1) on Scalar's backgrounds in both
 * themes (its own red, green and orange do not, axe says).
 */
const SCALAR_CSS = `
.scalar-app { --scalar-font: inherit; --scalar-font-code: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.light-mode {
  --scalar-color-green: #15803d; --scalar-color-blue: #1d4ed8; --scalar-color-red: #b91c1c;
  --scalar-color-orange: #c2410c; --scalar-color-yellow: #a16207; --scalar-color-purple: #7e22ce;
}
.dark-mode {
  --scalar-color-green: #4ade80; --scalar-color-blue: #60a5fa; --scalar-color-red: #f87171;
  --scalar-color-orange: #fb923c; --scalar-color-yellow: #facc15; --scalar-color-purple: #c084fc;
}
`;

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
      customCss: SCALAR_CSS,
    }),
    [theme, serverUrl],
  );
  return <ApiReferenceReact configuration={configuration} />;
}
