import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import {
  createPaymentSettingsStore,
  DEFAULT_PAYMENT_SETTINGS,
  readPaymentSettings,
  writePaymentSettings,
} from './payment-settings.ts';

let db: Db;
beforeAll(async () => {
  ({ db } = await createTestDatabase());
});
beforeEach(() => truncateAll(db));

const euro = { ...DEFAULT_PAYMENT_SETTINGS, currency: 'EUR' as const };

describe('payment settings store', () => {
  it('answers the defaults until an admin saves, then what was saved', async () => {
    expect(await readPaymentSettings(db)).toEqual(DEFAULT_PAYMENT_SETTINGS);
    await writePaymentSettings(db, euro, new Date());
    expect((await readPaymentSettings(db)).currency).toBe('EUR');
  });

  it("sees its own writes at once and another process's within the cache time", async () => {
    let clock = 1_000;
    const store = createPaymentSettingsStore(db, 2_000, () => clock);
    const other = createPaymentSettingsStore(db, 2_000, () => clock);
    expect((await other.read()).currency).toBe('USD');
    await store.write(euro, new Date());
    expect((await store.read()).currency).toBe('EUR');
    // The other process still has its cached copy…
    expect((await other.read()).currency).toBe('USD');
    // …until the cache time has passed.
    clock += 2_001;
    expect((await other.read()).currency).toBe('EUR');
  });
});
