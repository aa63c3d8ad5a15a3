import { createRouter } from '../../../lib/create-router.ts';
import { PENDING_ACTIVATION } from '../domain-verification.ts';
import * as domainRoutes from './instance-domains.routes.ts';
import type { InstanceDomainsService } from './instance-domains.service.ts';

/** What the custom-domain and SSL routes ask of the domains service. */
type DomainsHandlers = Pick<
  InstanceDomainsService,
  'addDomain' | 'verifyDomain' | 'removeDomain' | 'sslStatus' | 'requestSsl'
>;

/** An instance's custom domain and its certificate: /api/instances/{id}/domain and /ssl. */
export function createInstanceDomainsRouter(instances: DomainsHandlers) {
  return createRouter()
    .openapi(domainRoutes.addDomain, async (c) => {
      const { id } = c.req.valid('param');
      const instance = await instances.addDomain(c.get('user').id, id, c.req.valid('json').domain);
      return c.json({ instance, message: 'Custom domain added successfully' }, 200);
    })
    .openapi(domainRoutes.verifyDomain, async (c) => {
      const instance = await instances.verifyDomain(c.get('user').id, c.req.valid('param').id);
      const verification = instance.customDomain?.verification;
      const message =
        verification?.status === 'attached'
          ? 'Domain verified and attached'
          : (verification?.message ?? PENDING_ACTIVATION);
      return c.json({ instance, message }, 200);
    })
    .openapi(domainRoutes.removeDomain, async (c) => {
      const instance = await instances.removeDomain(c.get('user').id, c.req.valid('param').id);
      return c.json({ instance, message: 'Custom domain removed successfully' }, 200);
    })
    .openapi(domainRoutes.getSsl, async (c) =>
      c.json(await instances.sslStatus(c.get('user').id, c.req.valid('param').id), 200),
    )
    .openapi(domainRoutes.requestSsl, async (c) => {
      const result = await instances.requestSsl(c.get('user').id, c.req.valid('param').id);
      return c.json({ ...result, message: 'Requested SSL. It may take a moment to activate.' }, 200);
    });
}
