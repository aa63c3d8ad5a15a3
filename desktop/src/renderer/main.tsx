import { App } from '@berth/ui';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { HashRouter } from 'react-router';
import { createDesktopPlatform } from './desktop-platform.ts';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

// The server URL is read once at start-up: saving a new one on the Settings screen makes the main process
// load the page again, which then starts against the new server.
const platform = createDesktopPlatform(window.desktop, await window.desktop.getServerUrl());

createRoot(root).render(
  <StrictMode>
    <HashRouter>
      <App platform={platform} />
    </HashRouter>
  </StrictMode>,
);
