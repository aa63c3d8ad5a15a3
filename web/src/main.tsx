import type { Schemas } from '@berth/openapi';
import { startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { appElement } from './app-element.tsx';
import { carryOutBeforeStart } from './before-start.ts';
import {
  BEFORE_START_GLOBAL,
  type BeforeStart,
  CLIENT_RENDER_ATTRIBUTE,
  PUBLIC_CONFIG_ELEMENT_ID,
} from './prerender-contract.ts';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

/** The server's settings a prerendered page was rendered with (page-document.ts), if it carries them. */
function publicConfigOfPage(): Schemas['PublicConfig'] | undefined {
  const text = document.getElementById(PUBLIC_CONFIG_ELEMENT_ID)?.textContent;
  return text ? (JSON.parse(text) as Schemas['PublicConfig']) : undefined;
}

const app = appElement((children) => <BrowserRouter>{children}</BrowserRouter>, publicConfigOfPage());
const html = document.documentElement;
const beforeStart = (window as unknown as Record<string, BeforeStart | undefined>)[BEFORE_START_GLOBAL];

if (root.hasChildNodes() && html.getAttribute(CLIENT_RENDER_ATTRIBUTE) !== 'client') {
  // A prerendered public page, shown already: React takes over its markup. As a transition, the work
  // is cut into short tasks, so the page answers input meanwhile.
  startTransition(() => {
    hydrateRoot(root, app, {
      // A mismatch makes React render the page again from scratch: correct, but slower, so say it.
      onRecoverableError: (error) => console.error('[berth] the prerendered page did not hydrate:', error),
    });
  });
  // What the visitor did before, and does on parts not hydrated yet, is carried out as each part comes
  // alive.
  carryOutBeforeStart(root, beforeStart);
} else {
  // The app shell, or a prerendered page this visitor must not see (signed in, or the other colour
  // scheme: the <head> script hid it before the first paint). Render from scratch.
  if (beforeStart) beforeStart.isLive = () => true;
  root.replaceChildren();
  html.removeAttribute(CLIENT_RENDER_ATTRIBUTE);
  // As a transition too: the first screen is rendered in short tasks.
  startTransition(() => createRoot(root).render(app));
}
