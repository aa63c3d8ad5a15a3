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
 * module is the page's lazy chunk, preloaded by the prerendered HTML; `styles`, a lazy module whose
 * stylesheets the page links in its head (its markup needs them before any script runs).
 */
export const PRERENDERED_PAGES: readonly { path: string; module: string; styles?: string }[] = [
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
  // With Scalar's markup of the public API and its styles (no script: it is taken over on first use).
  {
    path: '/api-reference',
    module: 'api-reference/api-reference-page.tsx',
    styles: 'api-reference/scalar-reference.tsx',
  },
];

/**
 * The signed-in pages the server renders for each visit, with the visitor's data, when the visitor's
 * session cookie (SESSION_COOKIE) is valid: the page paints before any script runs, and the app
 * hydrates it at once. The module is the page's lazy chunk, preloaded by the page.
 */
export const SIGNED_IN_PAGES: readonly { path: string; module: string }[] = [
  { path: '/dashboard', module: 'dashboard/dashboard-page.tsx' },
];

/**
 * The cookie holding the access token beside localStorage (web-platform.ts), for the server to render
 * a signed-in page (SIGNED_IN_PAGES). Only page renders read it: the API takes the bearer header only,
 * so a request another site makes the browser send gains nothing from it.
 */
export const SESSION_COOKIE = 'berth_session';
/**
 * On <html> of a signed-in page: the end of the access token it was rendered for (sessionTag). The
 * <head> script shows the page only when the stored token ends the same.
 */
export const SESSION_ATTRIBUTE = 'data-session';
const SESSION_TAG_LENGTH = 16;
/** What SESSION_ATTRIBUTE holds for `token`: the end of its signature, which no other token shares. */
export const sessionTag = (token: string): string => token.slice(-SESSION_TAG_LENGTH);

/** The cookie with the browser's locale and time zone (`locale|timeZone`): the server renders dates in them. */
export const INTL_COOKIE = 'berth_intl';

/** The <script type="application/json"> holding what a signed-in page was rendered with (its data, clock). */
export const SERVER_RENDER_ELEMENT_ID = 'berth-server-render';

/**
 * The script inlined in the <head> of a prerendered page, after its styles: it runs before the first
 * paint. When the visitor's session differs from the page's (a stored token on a public page; on a
 * signed-in one, none or another than the cookie's the server rendered it for) or they chose the other colour scheme, it marks the page
 * for a client render (the markup stays hidden) and removes the page-wide styles of the scheme the page
 * was rendered in, so no wrong theme and no wrong page flashes. `keys` are the localStorage keys the
 * app reads (prerender-entry.tsx passes the app's own).
 */
export function bootScript(keys: { token: string; theme: string }, signedIn: boolean): string {
  const token = JSON.stringify(keys.token);
  const theme = JSON.stringify(keys.theme);
  // A signed-in page fits only the stored session it was rendered for (SESSION_ATTRIBUTE), whatever
  // cookie came with the request (another site of the same parent domain can set one).
  const fits = signedIn
    ? `t!==null&&t.slice(-${SESSION_TAG_LENGTH})===d.getAttribute(${JSON.stringify(SESSION_ATTRIBUTE)})`
    : 't===null';
  return [
    '(function(){var d=document.documentElement,t=null,m="dark";',
    `try{t=localStorage.getItem(${token});m=localStorage.getItem(${theme})==="light"?"light":"dark"}catch(e){}`,
    `if(${fits}&&m===d.getAttribute(${JSON.stringify(PRERENDERED_ATTRIBUTE)}))return;`,
    `d.setAttribute(${JSON.stringify(CLIENT_RENDER_ATTRIBUTE)},"client");`,
    'document.querySelectorAll(\'style[data-emotion^="css-global "]\').forEach(function(s){s.remove()})})()',
  ].join('');
}

/** The <script type="application/json"> holding GET /api/config's answer the page was rendered with. */
export const PUBLIC_CONFIG_ELEMENT_ID = 'berth-public-config';

/**
 * On `window`, set by startScript: what the visitor did on the page that the app could not take yet,
 * for main.tsx to carry out once it can. Until main.tsx sets `isLive`, every button click and form
 * submit is held; from then on only those on elements React has not hydrated yet.
 */
export const BEFORE_START_GLOBAL = '__berthBeforeStart';
export interface BeforeStart {
  /** Buttons clicked (links are followed by the browser itself). */
  clicked: Element[];
  /** Forms submitted: held, so a form never goes to the server as a plain GET with its fields. */
  submitted: HTMLFormElement[];
  /** Whether the app handles this element's events now. */
  isLive?: (element: Element) => boolean;
  /** Called after each held click or submit. */
  changed?: () => void;
}

/** How many <link rel="modulepreload"> startScript adds in one task. */
const PRELOADS_PER_TASK = 6;

/** The first signs of a person on the page: any of them starts the app (startScript). */
const START_EVENTS = ['pointerdown', 'pointermove', 'touchstart', 'keydown', 'focusin', 'wheel', 'scroll'];

/**
 * The script that starts the app on a prerendered page, in place of Vite's `<script type="module">` and
 * `<link rel="modulepreload">` tags. The page is complete without the app (its markup, styles and the
 * server's settings are in the HTML), so the app's code is fetched and run when a person first shows up
 * (START_EVENTS), and at once when the page is not shown as prerendered (signed in, the other colour
 * scheme: CLIENT_RENDER_ATTRIBUTE) or the address carries a query (`?ref=` is counted by the app).
 * It holds button clicks and form submits the app cannot take yet (BEFORE_START_GLOBAL). `atOnce` (a
 * signed-in page, whose data lives on: countdowns, notifications) starts it as soon as the page has
 * painted, without waiting for a person; its code still loads after that first paint, not competing
 * with the page for the network before it.
 */
export function startScript(entry: string, preloads: readonly string[], atOnce = false): string {
  const events = JSON.stringify(START_EVENTS);
  return [
    '(function(){var d=document,w=window,started=false,b={clicked:[],submitted:[]};',
    `w[${JSON.stringify(BEFORE_START_GLOBAL)}]=b;`,
    'function hold(e,t,list){if(b.isLive&&b.isLive(t))return;e.preventDefault();e.stopPropagation();list.push(t);if(b.changed)b.changed();start()}',
    'function onClick(e){var t=e.target instanceof Element?e.target.closest("button,[role=button],input[type=submit]"):null;',
    'if(t&&!t.closest("a[href]"))hold(e,t,b.clicked)}',
    'd.addEventListener("click",onClick,true);d.addEventListener("submit",function(e){hold(e,e.target,b.submitted)},true);',
    // The browser's own focus of an `autofocus` field is not a person: their typing (keydown) is.
    'function onEvent(e){if(!(e.type==="focusin"&&e.target instanceof Element&&e.target.hasAttribute("autofocus")))start()}',
    `function start(){if(started)return;started=true;${events}.forEach(function(n){w.removeEventListener(n,onEvent,true)});var h=d.head,p=${JSON.stringify(preloads)};`,
    `var s=d.createElement("script");s.type="module";s.crossOrigin="";s.src=${JSON.stringify(entry)};h.appendChild(s);`,
    // The preloads a few per task: starting each download takes the main thread a moment, and dozens
    // at once would hold it for long.
    `(function add(i){for(var e=Math.min(i+${PRELOADS_PER_TASK},p.length);i<e;i++){var l=d.createElement("link");l.rel="modulepreload";l.crossOrigin="";l.href=p[i];h.appendChild(l)}if(i<p.length)setTimeout(function(){add(i)},0)})(0)}`,
    `if(d.documentElement.hasAttribute(${JSON.stringify(CLIENT_RENDER_ATTRIBUTE)})||location.search)start();`,
    `else{${events}.forEach(function(n){w.addEventListener(n,onEvent,{capture:true,passive:true})});`,
    // Once the page is on screen: the first frame, then a task (a frame callback runs before its paint).
    `${atOnce ? 'requestAnimationFrame(function(){setTimeout(start,0)})' : ''}}})()`,
  ].join('');
}

/** Hides the prerendered markup of a page marked for a client render (see bootScript). */
export const CLIENT_RENDER_STYLE = `[${CLIENT_RENDER_ATTRIBUTE}=client] #root{display:none}`;
