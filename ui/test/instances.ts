import type { User } from '@berth/openapi';
import type { Instance } from '../src/api/instances.queries.ts';
import type { FakeRoutes, RecordedRequest } from './fake-api.ts';
import { instanceList, makeUser, signedInApi } from './fixtures.ts';
import { renderApp } from './render-app.tsx';

/** The app signed in as `user` at `path` (the instance list by default). */
export function renderInstances(api: FakeRoutes = {}, user: User = makeUser(), path = '/instances') {
  return renderApp({ path, token: 'stored', api: { ...signedInApi(user), ...api } });
}

/** GET /api/instances answered from `all`, as the server does: search by name, then one page. */
export function serveInstances(all: Instance[]) {
  return (request: RecordedRequest) => {
    const query = new URLSearchParams(request.search);
    const page = Number(query.get('page') ?? 1);
    const limit = Number(query.get('limit') ?? 24);
    const search = query.get('search')?.toLowerCase() ?? '';
    const found = all.filter((instance) => instance.name.toLowerCase().includes(search));
    return {
      body: instanceList(found.slice((page - 1) * limit, page * limit), { page, limit, total: found.length }),
    };
  };
}
