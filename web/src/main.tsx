import type { Schemas } from '@berth/openapi';
import { preloadSignedInPage, type ServerRenderState } from '@berth/ui';
import { type ReactNode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { appElement } from './app-element.tsx';
import { carryOutBeforeStart } from './before-start.ts';
import {
  BEFORE_START_GLOBAL,
  type BeforeStart,
  CLIENT_RENDER_ATTRIBUTE,
  PUBLIC_CONFIG_ELEMENT_ID,
  SERVER_RENDER_ELEMENT_ID,
} from './prerender-contract.ts';
import { syncSessionCookies, TOKEN_STORAGE_KEY } from './web-platform.ts';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

/** A JSON element of the page (page-document.ts), if it carries it. */
function jsonOfPage<T>(id: string): T | undefined {
  const text = document.getElementById(id)?.textContent;
  return text ? (JSON.parse(text) as T) : undefined;
}

const storedToken = (() => {
  try {
    return localStorage.getItem(TOKEN_STORAGE_KEY);
  } catch {
    return null;
  }
})();
// The cookies the server renders signed-in pages with follow the stored session (a session stored
// before they existed, a new time zone).
syncSessionCookies(storedToken);

const router = (children: ReactNode) => <BrowserRouter>{children}</BrowserRouter>;
const publicConfig = jsonOfPage<Schemas['PublicConfig']>(PUBLIC_CONFIG_ELEMENT_ID);
const html = document.documentElement;
const beforeStart = (window as unknown as Record<string, BeforeStart | undefined>)[BEFORE_START_GLOBAL];

if (root.hasChildNodes() && html.getAttribute(CLIENT_RENDER_ATTRIBUTE) !== 'client') {
  // A page rendered ahead, shown already: a public page, or a signed-in one the server rendered with
  // the visitor's data (which the app starts from). React takes over its markup. As a transition, the
  // work is cut into short tasks, so the page answers input meanwhile.
  const serverRender = jsonOfPage<ServerRenderState>(SERVER_RENDER_ELEMENT_ID);
  const app = appElement(router, { publicConfig, serverRender });
  // A signed-in page's code (its screen, the top bar) first, so the whole page hydrates in one pass
  // of short tasks, instead of each lazy part in a long task of its own as its code arrives.
  const codeHere = serverRender ? preloadSignedInPage(location.pathname).catch(() => {}) : Promise.resolve();
  void codeHere.then(() => {
    startTransition(() => {
      hydrateRoot(root, app, {
        // A mismatch makes React render the page again from scratch: correct, but slower, so say it.
        onRecoverableError: (error) => console.error('[berth] the prerendered page did not hydrate:', error),
      });
    });
    // What the visitor did before, and does on parts not hydrated yet, is carried out as each part
    // comes alive.
    carryOutBeforeStart(root, beforeStart);
  });
} else {
  // The app shell, or a prerendered page this visitor must not see (signed in, or the other colour
  // scheme: the <head> script hid it before the first paint). Render from scratch.
  if (beforeStart) beforeStart.isLive = () => true;
  root.replaceChildren();
  html.removeAttribute(CLIENT_RENDER_ATTRIBUTE);
  // As a transition too: the first screen is rendered in short tasks.
  const app = appElement(router, { publicConfig });
  startTransition(() => createRoot(root).render(app));
}
