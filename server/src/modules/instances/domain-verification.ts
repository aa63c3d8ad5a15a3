import { randomBytes } from 'node:crypto';
import { DOMAIN_VERIFICATION } from '@berth/openapi/rules';
import type { TxtAnswer } from '../../lib/dns-txt.ts';

/**
 * Proof of ownership of a custom domain: the customer adds the TXT record `_berth-verify.<domain>` with
 * the value `berth-verify=<token>`; the token is random per account and domain (an account's instances
 * share it, so moving a domain between them needs no new record).
 */
const TXT_PREFIX = DOMAIN_VERIFICATION.name;
const VALUE_PREFIX = DOMAIN_VERIFICATION.valuePrefix;

/** The spec's wording for a domain that is not attached yet. */
export const PENDING_ACTIVATION = 'A custom domain is pending activation until DNS is set up';

/** How long a pending domain is checked in the background before it is marked failed. */
export const PENDING_WINDOW_HOURS = 72;

export const newDomainToken = () => randomBytes(16).toString('hex');

export function verificationRecord(domain: string, token: string) {
  return { type: 'TXT' as const, name: `${TXT_PREFIX}.${domain}`, value: `${VALUE_PREFIX}${token}` };
}

export type CheckOutcome = { matched: true } | { matched: false; message: string };

const quoted = (records: string[]) =>
  records
    .slice(0, 3)
    .map((r) => `"${r.length > 80 ? `${r.slice(0, 80)}…` : r}"`)
    .join(', ');

/** Whether the TXT answer proves the token, and if not, what the customer should be told. */
export function judgeTxt(domain: string, token: string, answer: TxtAnswer): CheckOutcome {
  const { name, value } = verificationRecord(domain, token);
  if (answer.kind === 'found') {
    if (answer.records.some((record) => record.trim() === value)) return { matched: true };
    const ours = answer.records.filter((r) => r.trim().startsWith(VALUE_PREFIX));
    return {
      matched: false,
      message: `The TXT record ${name} does not hold ${value} yet (found ${quoted(ours.length > 0 ? ours : answer.records)})`,
    };
  }
  if (answer.kind === 'none') return { matched: false, message: `No TXT record ${name} found yet` };
  return {
    matched: false,
    message: `The DNS lookup of ${name} failed (${answer.reason}); it is tried again`,
  };
}
