import type { Db } from '../../../db/database.ts';
import type { InstanceRow } from '../../../db/tables/instances.ts';
import type { TxtLookup } from '../../../lib/dns-txt.ts';
import { ConflictError, ValidationError } from '../../../lib/errors.ts';
import { judgeTxt, PENDING_WINDOW_HOURS, verificationRecord } from '../domain-verification.ts';
import type { InstancesContext } from '../instances.context.ts';
import { findDomainHolders, updateDomainOf, type updateInstance } from '../instances.repository.ts';
import { instanceHasJobs } from '../queue/instance-jobs.ts';

export const DOMAINS_SITES_ONLY = 'Custom domains are only available for WordPress instances';
export const domainTaken = (domain: string) => `The domain ${domain} is already in use by another account`;

/** The domain fields of a row without a custom domain. */
export const noDomain = {
  custom_domain: null,
  domain_added_at: null,
  domain_status: null,
  domain_token: null,
  domain_checked_at: null,
  domain_message: null,
  ssl: null,
};

export interface InstanceDomainsDeps {
  db: Db;
  /** TXT lookups that prove ownership of custom domains. */
  txtLookup: TxtLookup;
}

/**
 * The verification side of custom domains (instance-domains.service.ts): looking up a pending domain's
 * TXT record, moving a domain between the same account's instances, and attaching a verified domain
 * through the engine once the site can take it.
 */
export function domainChecks({ db, txtLookup }: InstanceDomainsDeps, ctx: InstancesContext) {
  const { publish, capabilityOf } = ctx;
  const domainsOf = (row: InstanceRow) => capabilityOf(row, 'domains', DOMAINS_SITES_ONLY);

  /** Whether the driver may change the site's domain now (deployed, running, no job of it under way). */
  async function canAttach(row: InstanceRow): Promise<boolean> {
    return (
      row.deployed_at !== null &&
      row.status === 'running' &&
      !row.suspended &&
      !(await instanceHasJobs(db, row.id))
    );
  }

  /**
   * The same account's other instance holding the domain gives it up (the domain moves): detached by
   * the driver when it was attached there, then cleared from that row.
   */
  async function releaseFromOwnInstances(row: InstanceRow, domain: string) {
    for (const holder of await findDomainHolders(db, domain)) {
      if (holder.id === row.id) continue;
      if (holder.user_id !== row.user_id) throw new ConflictError(domainTaken(domain));
      const urls =
        holder.domain_status === 'attached' && holder.deployed_at !== null
          ? await domainsOf(holder).set(holder.id, null)
          : undefined;
      const cleared = await updateDomainOf(db, holder.id, domain, {
        ...noDomain,
        ...(urls && { url: urls.url, admin_url: urls.adminUrl }),
      });
      if (cleared && cleared !== 'taken') await publish(db, cleared);
    }
  }

  /**
   * Looks up the TXT record of the row's pending (or failed) domain and stores what it found; when it
   * holds the token the domain becomes verified (refused with 409 when another account holds it) and is
   * attached through the driver when the site can take it now (else later, by the deploy job or the
   * background check). A verified domain is only attached. Answers the row as stored.
   */
  async function checkDomain(row: InstanceRow, options: { throwConflict: boolean }): Promise<InstanceRow> {
    const domain = row.custom_domain;
    if (!domain || !row.domain_token || !row.domain_status) return row;
    let current = row;
    if (row.domain_status === 'pending' || row.domain_status === 'failed') {
      const outcome = judgeTxt(
        domain,
        row.domain_token,
        await txtLookup(verificationRecord(domain, row.domain_token).name),
      );
      const checked = { domain_checked_at: new Date() };
      if (!outcome.matched) {
        const stale =
          row.domain_status === 'pending' &&
          row.domain_added_at !== null &&
          Date.now() - row.domain_added_at.getTime() > PENDING_WINDOW_HOURS * 3_600_000;
        const updated = await updateDomainOf(db, row.id, domain, {
          ...checked,
          domain_status: stale ? 'failed' : row.domain_status,
          domain_message: stale
            ? `${outcome.message} within ${PENDING_WINDOW_HOURS} hours. Add the record and press Verify now.`
            : outcome.message,
        });
        if (updated && updated !== 'taken') await publish(db, updated);
        return updated && updated !== 'taken' ? updated : row;
      }
      const refuse = async () => {
        const failed = await updateDomainOf(db, row.id, domain, {
          ...checked,
          domain_status: 'failed',
          domain_message: domainTaken(domain),
        });
        if (failed && failed !== 'taken') await publish(db, failed);
        if (options.throwConflict) throw new ConflictError(domainTaken(domain));
        return failed && failed !== 'taken' ? failed : row;
      };
      try {
        await releaseFromOwnInstances(row, domain);
      } catch (error) {
        if (error instanceof ConflictError) return refuse();
        throw error;
      }
      const verified = await updateDomainOf(db, row.id, domain, {
        ...checked,
        domain_status: 'verified',
        domain_message: 'Verified; the domain is attached once the site runs',
      });
      if (verified === 'taken') return refuse();
      if (!verified) return row;
      current = verified;
    }
    if (current.domain_status !== 'verified') return current;
    if (!(await canAttach(current))) {
      // Looked at again in a minute (not at every background run, ahead of the pending ones).
      if (current === row) await updateDomainOf(db, row.id, domain, { domain_checked_at: new Date() });
      return current;
    }
    let patch: Parameters<typeof updateInstance>[2];
    try {
      const urls = await domainsOf(current).set(current.id, domain);
      patch = {
        url: urls.url,
        admin_url: urls.adminUrl,
        domain_status: 'attached',
        domain_message: 'Verified and attached',
        domain_checked_at: new Date(),
        ssl: null,
      };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      // The driver refusing the domain itself (e.g. one of the platform's own addresses) is final.
      patch =
        error instanceof ValidationError
          ? { domain_status: 'failed', domain_message: reason, domain_checked_at: new Date() }
          : {
              domain_message: `Verified; attaching failed (${reason}), it is tried again`,
              domain_checked_at: new Date(),
            };
    }
    const updated = await updateDomainOf(db, current.id, domain, patch);
    if (!updated || updated === 'taken') return current;
    await publish(db, updated);
    return updated;
  }

  /**
   * Domain changes run synchronously; a deploy job of the same instance (a reconcile, a resume) brings
   * the domain in line with the row, so a change is refused while such a job waits or runs.
   */
  async function refuseWhileBusy(row: InstanceRow) {
    if (await instanceHasJobs(db, row.id)) {
      throw new ConflictError('The instance is busy with another operation; try again in a moment');
    }
  }

  return { domainsOf, checkDomain, refuseWhileBusy };
}
