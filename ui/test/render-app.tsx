import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, useLocation } from 'react-router';
import { App } from '../src/app/app.tsx';
import { type FakeRoutes, fakeApi } from './fake-api.ts';
import { FakeApiReferenceViewer, FakeBotCheckWidget, fakeStreams } from './fake-integrations.tsx';
import { type FakePlatformOptions, fakePlatform } from './fake-platform.ts';
import { capabilities, instanceList, notificationList, paymentSettings, publicConfig } from './fixtures.ts';

/** Renders the current location so tests can assert where the app went. */
function LocationProbe() {
  const location = useLocation();
  return (
    <output data-testid="location" hidden>
      {location.pathname}
      {location.search}
    </output>
  );
}

export interface RenderAppOptions {
  /** The URL the app starts at. */
  path?: string;
  /** What the token store holds at start (null: signed out). */
  token?: string | null;
  api?: FakeRoutes;
  /** The host: the web by default; `{ desktop: true }` for the desktop app's Platform. */
  host?: FakePlatformOptions;
}

/**
 * Answers every render gets unless the test gives its own: no bot check, an empty bell, no instances,
 * MySQL and PostgreSQL deployable, and room for one more instance.
 */
const DEFAULT_ROUTES: FakeRoutes = {
  'GET /api/config': { body: publicConfig() },
  'GET /api/notifications': { body: notificationList() },
  'POST /api/notifications/stream-token': { body: { token: 'stream-token', expiresIn: 60 } },
  'GET /api/instances': { body: instanceList() },
  'GET /api/instances/capabilities': { body: capabilities() },
  'GET /api/subscriptions/can-create-instance': { body: { canCreate: true } },
  'GET /api/payments/settings': { body: paymentSettings() },
  'GET /api/payments/billing-history': { body: { invoices: [] } },
};

/**
 * The whole App under a memory router, with a fake Platform, the real client on a fake fetch, a fake
 * EventSource (`streams`) and a bot-check widget without Cloudflare.
 */
export function renderApp({ path = '/', token = null, api: routes = {}, host }: RenderAppOptions = {}) {
  const api = fakeApi({ ...DEFAULT_ROUTES, ...routes });
  api.install();
  const { platform, store, notified, externalUrls, paymentPages, desktop, openRoute } = fakePlatform(
    token,
    host,
  );
  const streams = fakeStreams();
  const user = userEvent.setup();
  const view = render(
    <MemoryRouter initialEntries={[path]}>
      <App
        platform={platform}
        integrations={{
          openEventSource: streams.open,
          BotCheckWidget: FakeBotCheckWidget,
          ApiReferenceViewer: FakeApiReferenceViewer,
        }}
      />
      <LocationProbe />
    </MemoryRouter>,
  );
  const location = () => view.getByTestId('location').textContent;
  return {
    ...view,
    api,
    store,
    user,
    location,
    streams,
    notified,
    externalUrls,
    paymentPages,
    desktop,
    openRoute,
  };
}
