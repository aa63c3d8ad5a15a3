// The bench's yardstick must keep reading what Berth reads: if Berth's profile or instance list gains a
// read and the bare server does not, the bench's ratio flatters nobody but the bare server.
import { describe, expect, it } from 'vitest';
import { newAffiliate } from '../test/affiliate-fixtures.ts';
import { call, createTestApp, TEST_JWT_SECRET } from '../test/create-test-app.ts';
import { insertInstanceRows } from '../test/instance-rows.ts';
import { createTestDatabase } from '../test/test-db.ts';
import { createBaselineApp } from './baseline-server.ts';

const { db, url } = await createTestDatabase();
const app = createTestApp(db);

describe("the bench's bare server", () => {
  it("answers the facts of Berth's profile and instance list from the same reads", async () => {
    const { token, userId } = await newAffiliate(app);
    await insertInstanceRows(db, userId, 3);
    const baseline = createBaselineApp(url, TEST_JWT_SECRET, 2);
    try {
      const bare = async <T>(route: string) =>
        (await (
          await baseline.app.request(route, { headers: { authorization: `Bearer ${token}` } })
        ).json()) as T;

      const { user } = (await call(app, 'GET', '/api/auth/profile', { token })).json;
      const bareUser = (await bare<{ user: Record<string, unknown> }>('/api/auth/profile')).user;
      expect(bareUser).toMatchObject({
        id: user.id,
        email: user.email,
        affiliate_status: user.affiliateStatus,
        subscription: { plan: user.subscription.plan, used: user.subscription.usedInstances },
      });
      expect(user.affiliateStatus).toBe('active');
      expect(user.subscription.usedInstances).toBe(3);

      const list = (await call(app, 'GET', '/api/instances', { token })).json;
      const bareList = await bare<{ total: number; instances: { id: string }[] }>('/api/instances');
      expect(bareList.total).toBe(list.total);
      expect(bareList.instances.map((i) => i.id)).toEqual(list.instances.map((i: { id: string }) => i.id));
    } finally {
      await baseline.close();
    }
  });
});
