import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, useLocation } from 'react-router';
import { App } from '../src/app/app.tsx';
import { type FakeRoutes, fakeApi } from './fake-api.ts';
import { fakePlatform } from './fake-platform.ts';

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
}

/** The whole App under a memory router, with a fake Platform and the real client on a fake fetch. */
export function renderApp({ path = '/', token = null, api: routes = {} }: RenderAppOptions = {}) {
  const api = fakeApi(routes);
  api.install();
  const { platform, store } = fakePlatform(token);
  const user = userEvent.setup();
  const view = render(
    <MemoryRouter initialEntries={[path]}>
      <App platform={platform} />
      <LocationProbe />
    </MemoryRouter>,
  );
  const location = () => view.getByTestId('location').textContent;
  return { ...view, api, store, user, location };
}
