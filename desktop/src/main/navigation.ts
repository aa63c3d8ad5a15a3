/** Where the window may go. Pure functions, so the rules are unit-tested without Electron. */

export interface NavigationContext {
  /** The URL the window loads: `file://…/out/renderer/index.html`, or the dev server URL. */
  rendererUrl: string;
  /**
   * The configured Berth server. It is never a navigation target: the UI talks to it with fetch,
   * and any page loaded in the window would get the preload bridge (and with it the token store).
   */
  serverUrl: string;
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** True only for the app's own renderer; everything else (the server included) is denied. */
export function isNavigationAllowed(url: string, { rendererUrl }: NavigationContext): boolean {
  const target = parse(url);
  const renderer = parse(rendererUrl);
  if (!target || !renderer || target.protocol !== renderer.protocol) return false;
  switch (renderer.protocol) {
    // Packaged build: the same HTML file (the hash router only changes the fragment).
    case 'file:':
      return target.host === renderer.host && target.pathname === renderer.pathname;
    // Development: anything served by the renderer's dev server.
    case 'http:':
    case 'https:':
      return target.origin === renderer.origin;
    default:
      return false;
  }
}

/** Links that may be handed to the system browser: http(s) only (no file:, javascript:, custom schemes). */
export function isSafeExternalUrl(url: string): boolean {
  const target = parse(url);
  return target !== null && (target.protocol === 'http:' || target.protocol === 'https:');
}

/**
 * Routes the main process may ask the renderer to show (after a click on a system notification): an
 * absolute in-app path such as '/instances' or '/get-help?tab=my', never a URL or a protocol-relative
 * '//host' that the router could take elsewhere.
 */
export function isInAppRoute(route: string): boolean {
  return (
    route.length <= 2048 &&
    route.startsWith('/') &&
    !route.startsWith('//') &&
    !route.startsWith('/\\') &&
    // No control characters or spaces: what the UI passes here is a path it built itself.
    ![...route].some((char) => char <= ' ' || char === '\u007f')
  );
}
