import { startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { appElement } from './app-element.tsx';
import { CLIENT_RENDER_ATTRIBUTE } from './prerender-contract.ts';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

const app = appElement((children) => <BrowserRouter>{children}</BrowserRouter>);
const html = document.documentElement;

if (root.hasChildNodes() && html.getAttribute(CLIENT_RENDER_ATTRIBUTE) !== 'client') {
  // A prerendered public page, shown already: React takes over its markup. As a transition, the work
  // is cut into short tasks, so the page answers input meanwhile.
  startTransition(() => {
    hydrateRoot(root, app, {
      // A mismatch makes React render the page again from scratch: correct, but slower, so say it.
      onRecoverableError: (error) => console.error('[berth] the prerendered page did not hydrate:', error),
    });
  });
} else {
  // The app shell, or a prerendered page this visitor must not see (signed in, or the other colour
  // scheme: the <head> script hid it before the first paint). Render from scratch.
  root.replaceChildren();
  html.removeAttribute(CLIENT_RENDER_ATTRIBUTE);
  createRoot(root).render(app);
}
