import type { AppRouteHandler } from '../../../lib/create-router.ts';
import { PENDING_ACTIVATION } from '../domain-verification.ts';
import type * as routes from './instance-domains.routes.ts';
import type { InstanceDomainsService } from './instance-domains.service.ts';

// One handler a route of instance-domains.routes.ts, each given only the part of the domains service
// it calls; instance-domains.index.ts wires them.

type Uses<K extends keyof InstanceDomainsService> = Pick<InstanceDomainsService, K>;

export const addDomain =
  (domains: Uses<'addDomain'>): AppRouteHandler<typeof routes.addDomain> =>
  async (c) => {
    const { id } = c.req.valid('param');
    const instance = await domains.addDomain(c.get('user').id, id, c.req.valid('json').domain);
    return c.json({ instance, message: 'Custom domain added successfully' }, 200);
  };

export const verifyDomain =
  (domains: Uses<'verifyDomain'>): AppRouteHandler<typeof routes.verifyDomain> =>
  async (c) => {
    const instance = await domains.verifyDomain(c.get('user').id, c.req.valid('param').id);
    const verification = instance.customDomain?.verification;
    const message =
      verification?.status === 'attached'
        ? 'Domain verified and attached'
        : (verification?.message ?? PENDING_ACTIVATION);
    return c.json({ instance, message }, 200);
  };

export const removeDomain =
  (domains: Uses<'removeDomain'>): AppRouteHandler<typeof routes.removeDomain> =>
  async (c) => {
    const instance = await domains.removeDomain(c.get('user').id, c.req.valid('param').id);
    return c.json({ instance, message: 'Custom domain removed successfully' }, 200);
  };

export const getSsl =
  (domains: Uses<'sslStatus'>): AppRouteHandler<typeof routes.getSsl> =>
  async (c) =>
    c.json(await domains.sslStatus(c.get('user').id, c.req.valid('param').id), 200);

export const requestSsl =
  (domains: Uses<'requestSsl'>): AppRouteHandler<typeof routes.requestSsl> =>
  async (c) => {
    const result = await domains.requestSsl(c.get('user').id, c.req.valid('param').id);
    return c.json({ ...result, message: 'Requested SSL. It may take a moment to activate.' }, 200);
  };
