import type { Db } from '../src/db/database.ts';
import { answerOf, call, type Method, type Requester, register } from './create-test-app.ts';

/** A new customer on an active Pro plan with an API key, as a Pro developer starts: the account and key. */
export async function proWithKey(app: Requester, db: Db) {
  const account = await register(app);
  await db
    .updateTable('subscriptions')
    .set({ plan: 'pro', status: 'active', current_period_end: null })
    .where('user_id', '=', String(account.user.id))
    .execute();
  const res = await call(app, 'POST', '/api/keys/generate', { token: account.token });
  return { ...account, apiKey: res.json.apiKey };
}

/**
 * One /api/v1 request with `key` as a developer's script sends it (X-API-Key, or `Authorization: Bearer`
 * with `bearer`), its answer typed by the contract. The body is JSON as given: the public API's own
 * validation is what these tests read.
 */
export async function v1Request<M extends Method, const P extends string>(
  app: Requester,
  key: string,
  method: M,
  path: P,
  options: { body?: unknown; headers?: Record<string, string>; bearer?: boolean } = {},
) {
  const { body, headers = {}, bearer = false } = options;
  const res = await app.request(`/api/v1${path}`, {
    method,
    headers: {
      ...(bearer ? { authorization: `Bearer ${key}` } : { 'x-api-key': key }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return answerOf<M, `/api/v1${P}`>(res);
}
