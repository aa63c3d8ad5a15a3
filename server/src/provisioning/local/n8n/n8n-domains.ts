import { ConflictError, ValidationError } from '../../../lib/errors.ts';
import type { DomainCapability } from '../../engine.ts';
import { checkDomain } from '../../front-door/domain-names.ts';
import { type N8nContext, stillRunning } from './n8n-context.ts';
import { listN8nStates, writeN8nState } from './n8n-state.ts';

/**
 * An instance's custom domain (served over HTTPS by the front door; the temporary URL keeps working)
 * and its certificate. n8n's own addresses follow the domain, so a change restarts the instance.
 */
export function n8nDomains(
  ctx: Pick<
    N8nContext,
    'root' | 'options' | 'withInstance' | 'front' | 'requireState' | 'urlsOf' | 'stopProcess' | 'startServing'
  >,
): DomainCapability {
  const { root, withInstance, front, requireState, urlsOf } = ctx;

  async function domainHolder(domain: string, id: string): Promise<boolean> {
    return (await listN8nStates(root)).some((s) => s.id !== id && s.domain === domain);
  }

  async function sslStatus(id: string) {
    const state = await requireState(id);
    if (!state.domain) return null;
    return front().sslStatus(state.domain);
  }

  return {
    sslStatus,

    set(id, domain) {
      return withInstance(id, async () => {
        const state = await requireState(id);
        stillRunning(state);
        const door = front();
        const name = domain === null ? null : checkDomain(domain, ctx.options.baseDomain);
        if (name && (await domainHolder(name, id)))
          throw new ConflictError(`The domain ${name} is already attached to another site`);
        if (state.domain === name) return urlsOf(state);
        if (state.domain) await door.removeCertificates(state.domain);
        const changed = { ...state, domain: name };
        await writeN8nState(root, changed);
        await door.reload();
        // WEBHOOK_URL and the editor's address follow the domain: restart with the new environment.
        await ctx.stopProcess(id);
        await ctx.startServing(changed);
        return urlsOf(changed);
      });
    },

    /** Issues the custom domain's certificate again (as for WordPress sites). */
    async requestSsl(id) {
      await withInstance(id, async () => {
        const state = await requireState(id);
        stillRunning(state);
        const domain = state.domain;
        if (!domain) throw new ValidationError('SSL is only available for custom domains');
        // Caddy keeps a managed certificate in memory across reloads: stop managing the name, drop the
        // stored certificate, then manage it again so a new one is issued.
        const door = front();
        await door.reload((sites) => sites.map((s) => (s.id === id ? { ...s, domain: null } : s)));
        await door.removeCertificates(domain);
        await door.reload();
      });
      const status = await sslStatus(id);
      if (!status) throw new ValidationError('SSL is only available for custom domains');
      return status;
    },
  };
}
