import { ConflictError, ValidationError } from '../../../lib/errors.ts';
import type { SiteUrls, SslStatus } from '../../engine.ts';
import { checkDomain } from '../../front-door/domain-names.ts';
import { purgePageCache, writeWpConfig } from './site-files.ts';
import { listSiteStates, writeSiteState } from './site-state.ts';
import { notSuspended, type SiteContext } from './wordpress-context.ts';
import { updateSiteAddress } from './wordpress-install.ts';

/**
 * A site's custom domain and its certificate: attaching or removing the domain (wp-config.php, the
 * front door, WordPress' own address and the cached pages follow), the certificate's status, and a
 * new certificate on request.
 */
export function siteDomains(
  ctx: Pick<
    SiteContext,
    | 'root'
    | 'front'
    | 'withSite'
    | 'requireState'
    | 'runningSftp'
    | 'sandboxOf'
    | 'databaseOf'
    | 'urlsOf'
    | 'siteConfig'
    | 'reloadFront'
  >,
  baseDomain: string,
) {
  const { root, front, withSite, requireState, urlsOf, reloadFront } = ctx;

  async function sslStatus(id: string): Promise<SslStatus | null> {
    const state = await requireState(id);
    if (!state.domain) return null;
    ctx.runningSftp();
    return front.sslStatus(state.domain);
  }

  return {
    sslStatus,

    setDomain(id: string, domain: string | null): Promise<SiteUrls> {
      return withSite(id, async () => {
        const state = await requireState(id);
        notSuspended(state, 'changing the domain');
        const name = domain === null ? null : checkDomain(domain, baseDomain);
        const taken = (await listSiteStates(root)).find(
          (s) => s.id !== id && s.domain === name && name !== null,
        );
        if (taken) throw new ConflictError(`The domain ${name} is already attached to another site`);
        if (state.domain === name) return urlsOf(state);
        const before = urlsOf(state).url;
        if (state.domain) await front.removeCertificates(state.domain);
        const changed = { ...state, domain: name };
        await writeSiteState(root, changed);
        const sandbox = ctx.sandboxOf(id);
        await writeWpConfig(sandbox, ctx.siteConfig(changed));
        await reloadFront();
        const urls = urlsOf(changed);
        await updateSiteAddress(ctx.databaseOf(changed), before, urls.url);
        await purgePageCache(sandbox); // pages naming the old address
        return urls;
      });
    },

    async requestSsl(id: string): Promise<SslStatus> {
      await withSite(id, async () => {
        const state = await requireState(id);
        notSuspended(state, 'requesting SSL');
        const domain = state.domain;
        if (!domain) throw new ValidationError('SSL is only available for custom domains');
        // Caddy keeps a managed certificate in memory across reloads: stop managing the name, drop the
        // stored certificate, then manage it again so a new one is issued.
        await reloadFront((sites) => sites.map((s) => (s.id === id ? { ...s, domain: null } : s)));
        await front.removeCertificates(domain);
        await reloadFront();
      });
      const status = await sslStatus(id);
      if (!status) throw new ValidationError('SSL is only available for custom domains');
      return status;
    },
  };
}
