// What the build's prerendered pages (web/prerender.ts) and the browser's start (main.tsx) agree on.
// Plain values only: the Vite config loads this file in Node.

/** On <html>: the colour scheme the prerendered markup and its styles were rendered in. */
export const PRERENDERED_ATTRIBUTE = 'data-prerendered';
/**
 * On <html>, set before first paint when the prerendered markup must not be shown nor hydrated
 * (someone is signed in, or the visitor chose the other colour scheme): the app renders from scratch.
 */
export const CLIENT_RENDER_ATTRIBUTE = 'data-render';

/** The colour scheme pages are prerendered in: the app's default (dark unless the visitor chose light). */
export const PRERENDERED_SCHEME = 'dark';

/**
 * The public pages written to HTML at build time: the same for every signed-out visitor, and rendered
 * from the path alone (no query, no per-user data; what comes from GET /api/config loads after). The
 * module is the page's lazy chunk, preloaded by the prerendered HTML.
 */
export const PRERENDERED_PAGES: readonly { path: string; module: string }[] = [
  { path: '/', module: 'landing/landing-page.tsx' },
  { path: '/pricing', module: 'pricing/pricing-page.tsx' },
  { path: '/login', module: 'auth/login-page.tsx' },
  { path: '/help', module: 'help/help-page.tsx' },
  { path: '/terms', module: 'legal/legal-pages.tsx' },
  { path: '/privacy-policy', module: 'legal/legal-pages.tsx' },
  { path: '/cookies', module: 'legal/legal-pages.tsx' },
  { path: '/gdpr', module: 'legal/legal-pages.tsx' },
  { path: '/affiliate/terms', module: 'legal/legal-pages.tsx' },
  { path: '/affiliate/privacy-policy', module: 'legal/legal-pages.tsx' },
  { path: '/affiliate/privacy', module: 'legal/legal-pages.tsx' },
];

/**
 * The file of `dist/prerendered/` that holds the page of `pathname` ('/' → index.html,
 * '/affiliate/terms' → affiliate/terms.html). The server maps paths the same way.
 */
export const prerenderedFile = (pathname: string): string =>
  pathname === '/' ? 'index.html' : `${pathname.slice(1)}.html`;

/**
 * The script inlined in the <head> of a prerendered page, after its styles: it runs before the first
 * paint. When the visitor is signed in (a stored token) or chose the other colour scheme, it marks the
 * page for a client render (the markup stays hidden) and removes the page-wide styles of the scheme the
 * page was rendered in, so no wrong theme and no signed-out page flashes. `keys` are the localStorage
 * keys the app reads (prerender-entry.tsx passes the app's own).
 */
export function bootScript(keys: { token: string; theme: string }): string {
  const token = JSON.stringify(keys.token);
  const theme = JSON.stringify(keys.theme);
  return [
    '(function(){var d=document.documentElement,t=null,m="dark";',
    `try{t=localStorage.getItem(${token});m=localStorage.getItem(${theme})==="light"?"light":"dark"}catch(e){}`,
    `if(t===null&&m===d.getAttribute(${JSON.stringify(PRERENDERED_ATTRIBUTE)}))return;`,
    `d.setAttribute(${JSON.stringify(CLIENT_RENDER_ATTRIBUTE)},"client");`,
    'document.querySelectorAll(\'style[data-emotion^="css-global "]\').forEach(function(s){s.remove()})})()',
  ].join('');
}

/** Hides the prerendered markup of a page marked for a client render (see bootScript). */
export const CLIENT_RENDER_STYLE = `[${CLIENT_RENDER_ATTRIBUTE}=client] #root{display:none}`;
