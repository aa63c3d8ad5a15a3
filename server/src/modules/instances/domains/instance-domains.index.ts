import { createRouter } from '../../../lib/create-router.ts';
import * as handlers from './instance-domains.handlers.ts';
import * as routes from './instance-domains.routes.ts';
import type { InstanceDomainsService } from './instance-domains.service.ts';

/** What the custom-domain and SSL routes ask of the domains service. */
type DomainsUses = Pick<
  InstanceDomainsService,
  'addDomain' | 'verifyDomain' | 'removeDomain' | 'sslStatus' | 'requestSsl'
>;

/** An instance's custom domain and its certificate: /api/instances/{id}/domain and /ssl. */
export function createInstanceDomainsRouter(domains: DomainsUses) {
  return createRouter()
    .openapi(routes.addDomain, handlers.addDomain(domains))
    .openapi(routes.verifyDomain, handlers.verifyDomain(domains))
    .openapi(routes.removeDomain, handlers.removeDomain(domains))
    .openapi(routes.getSsl, handlers.getSsl(domains))
    .openapi(routes.requestSsl, handlers.requestSsl(domains));
}
