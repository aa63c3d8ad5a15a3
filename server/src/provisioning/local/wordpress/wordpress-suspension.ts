import { siteNames } from './site-names.ts';
import { writeSiteState } from './site-state.ts';
import type { SiteContext } from './wordpress-context.ts';

/**
 * Suspending a site takes it off the web (the front door answers 503 with the offline page), ends
 * its SFTP sessions, stops its php-fpm and locks its database user; resuming unlocks the database user,
 * starts php-fpm, routes the site again and waits until it answers.
 */
export function siteSuspension(
  ctx: Pick<
    SiteContext,
    'root' | 'front' | 'phps' | 'withSite' | 'requireState' | 'runningSftp' | 'mariadb' | 'reloadFront'
  >,
) {
  const { root, withSite, requireState } = ctx;
  return {
    suspend(id: string): Promise<void> {
      return withSite(id, async () => {
        const state = await requireState(id);
        ctx.runningSftp().server.disconnect(siteNames(id).slug);
        await writeSiteState(root, { ...state, suspended: true });
        await ctx.reloadFront();
        await ctx.phps.stop(id);
        await ctx.mariadb().tenants.suspend(siteNames(id).tenant);
      });
    },

    resume(id: string): Promise<void> {
      return withSite(id, async () => {
        const state = await requireState(id);
        await ctx.mariadb().tenants.resume(siteNames(id).tenant);
        const resumed = { ...state, suspended: false };
        await writeSiteState(root, resumed);
        await ctx.phps.start(resumed);
        await ctx.reloadFront();
        await ctx.front.waitForSite(siteNames(id).slug);
      });
    },
  };
}
