import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isRoot, systemUser } from './host.ts';
import { ensureSiteUser, removeSiteUser, TENANT_IDS } from './tenant-users.ts';

/** Tenants' Unix users: ids from a range of their own, never handed out twice. */
describe.skipIf(!isRoot())('tenant users', () => {
  if (!isRoot()) console.warn('[tenant user tests skipped] useradd needs root');

  it('take ids far above system and login users, with a group of the same number, never reused after a delete', async () => {
    const tag = randomBytes(3).toString('hex');
    const first = await ensureSiteUser(`wp_idtest${tag}a`, '/nonexistent');
    try {
      expect(first.uid).toBeGreaterThanOrEqual(TENANT_IDS.first);
      expect(first.uid).toBeLessThanOrEqual(TENANT_IDS.last);
      expect(first.gid).toBe(first.uid);
      // Asking again answers the same user.
      expect(await ensureSiteUser(`wp_idtest${tag}a`, '/nonexistent')).toEqual(first);
    } finally {
      await removeSiteUser(`wp_idtest${tag}a`);
    }
    expect(systemUser(`wp_idtest${tag}a`)).toBeUndefined();
    // The deleted user's id stays retired: the next tenant gets a higher one.
    const second = await ensureSiteUser(`wp_idtest${tag}b`, '/nonexistent');
    try {
      expect(second.uid).toBeGreaterThan(first.uid);
    } finally {
      await removeSiteUser(`wp_idtest${tag}b`);
    }
  });
});
