import publicApi from '@berth/openapi/openapi.v1.json';
import type { ColorMode } from '../../theme/theme.ts';

/** On the wrapper of the markup rendered at build time (scalar-markup.ts), until Scalar replaces it. */
export const SCALAR_STATIC_ATTRIBUTE = 'data-scalar-static';

/**
 * Our fonts, and text and HTTP method colours that meet WCAG AA contrast (4.5:1) on Scalar's backgrounds
 * in both themes (its own grey hints and badges, red, green and orange do not, axe says). The lists of a
 * section's endpoints and the examples' code wrap and example cards grow instead of scrolling (a scrolling box without a
 * control in it is out of reach of the keyboard); the schema toggles are 24 px, big enough to tap. The
 * markup rendered at build time: the browser lays out only the sections on screen (content-visibility),
 * so its first paint does not wait for the whole document's layout.
 */
const SCALAR_CSS = `
[${SCALAR_STATIC_ATTRIBUTE}] .section { content-visibility: auto; contain-intrinsic-size: auto 900px; }
.scalar-app { --scalar-font: inherit; --scalar-font-code: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.scalar-app .endpoints { overflow: visible; overflow-wrap: anywhere; }
.scalar-app .scalar-card-content.custom-scroll { max-height: none; overflow: visible; }
.scalar-app .scalar-card-content pre { white-space: pre-wrap; overflow-wrap: anywhere; }
.scalar-app [data-schema-toggle] { min-width: 24px; min-height: 24px; }
.light-mode {
  --scalar-color-2: #595959; --scalar-color-3: #616161;
  --scalar-color-green: #15803d; --scalar-color-blue: #1d4ed8; --scalar-color-red: #b91c1c;
  --scalar-color-orange: #c2410c; --scalar-color-yellow: #a16207; --scalar-color-purple: #7e22ce;
}
.dark-mode {
  --scalar-color-3: #909090;
  --scalar-color-green: #4ade80; --scalar-color-blue: #60a5fa; --scalar-color-red: #f87171;
  --scalar-color-orange: #fb923c; --scalar-color-yellow: #facc15; --scalar-color-purple: #c084fc;
}
`;

/** On the viewer's element: the page's render puts Scalar's markup inside it (web/prerender.ts). */
export const SCALAR_MOUNT_ATTRIBUTE = 'data-scalar-reference';

/** Scalar's `idPrefix` of the ids it generates: the same on the server's render and in the browser. */
export const SCALAR_ID_PREFIX = 'scalar-refs';

/**
 * How Scalar renders the public OpenAPI document (openapi/openapi.v1.json, the same the server answers at
 * /api/v1/openapi.json), the same in the browser and in the server's render of the page. Everything it
 * needs is bundled: no web fonts, no telemetry, no AI agent or MCP, no "try it" client (which would go
 * through Scalar's proxy), so it works offline. `serverUrl` '' keeps the document's own server (`/`, this
 * server, the same on every host); the desktop app names the server it talks to. Every section is open
 * (`openAllTags`), except in the markup rendered at build time, which shows the first (see scalar-markup.ts).
 */
export function scalarConfiguration(theme: ColorMode, serverUrl: string, openAllTags = true) {
  return {
    content: publicApi,
    ...(serverUrl ? { servers: [{ url: serverUrl, description: 'This Berth server' }] } : {}),
    forceDarkModeState: theme,
    hideDarkModeToggle: true,
    withDefaultFonts: false,
    telemetry: false,
    hideClientButton: true,
    defaultOpenAllTags: openAllTags,
    hideTestRequestButton: true,
    showDeveloperTools: 'never' as const,
    agent: { disabled: true },
    mcp: { disabled: true },
    customCss: SCALAR_CSS,
  };
}
