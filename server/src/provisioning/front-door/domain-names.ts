import { DOMAIN_PATTERN, INVALID_DOMAIN_MESSAGE } from '@berth/openapi/rules';
import { ValidationError } from '../../lib/errors.ts';

/**
 * A custom domain as the front door attaches it (the API's rule, @berth/openapi's DOMAIN_PATTERN): lower
 * case, no trailing dot; never under the platform's own base domain (those names are the temporary URLs).
 */
export function checkDomain(domain: string, baseDomain: string): string {
  const name = domain.trim().toLowerCase().replace(/\.$/, '');
  if (!DOMAIN_PATTERN.test(name)) throw new ValidationError(INVALID_DOMAIN_MESSAGE);
  if (name === baseDomain || name.endsWith(`.${baseDomain}`)) {
    throw new ValidationError(`Domains under ${baseDomain} are the platform's own addresses`);
  }
  return name;
}
