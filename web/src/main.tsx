import { App } from '@berth/ui';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { webPlatform } from './web-platform.ts';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <BrowserRouter>
      <App platform={webPlatform} />
    </BrowserRouter>
  </StrictMode>,
);
