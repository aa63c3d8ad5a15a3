import type { Db } from '../../db/database.ts';
import type { InstanceRow, StoredSsl } from '../../db/tables/instances.ts';
import type { TxtLookup } from '../../lib/dns-txt.ts';
import { ConflictError, ValidationError } from '../../lib/errors.ts';
import type { SiteUrls, SslStatus } from '../../provisioning/engine.ts';
import {
  judgeTxt,
  newDomainToken,
  PENDING_ACTIVATION,
  PENDING_WINDOW_HOURS,
  verificationRecord,
} from './domain-verification.ts';
import { instanceHasJobs } from './instance-jobs.ts';
import { DRIVER_FAILED, type InstancesContext, toInstance } from './instances.context.ts';
import {
  findDomainHolders,
  findDomainsDue,
  findDomainToken,
  updateDomainOf,
  updateInstance,
} from './instances.repository.ts';
import type { Instance, SslResult } from './instances.schemas.ts';

const DOMAINS_WHEN_INACTIVE = 'Adding domains is disabled.';
const REMOVE_DOMAIN_WHEN_INACTIVE = 'Your subscription is inactive. Removing domains is disabled.';
const SSL_WHEN_INACTIVE = 'Your subscription is inactive. Requesting SSL is disabled.';
const SSL_CUSTOM_ONLY = 'SSL is only available for custom domains';
const DOMAINS_SITES_ONLY = 'Custom domains are only available for WordPress instances';
const NO_CUSTOM_DOMAIN = 'The instance has no custom domain';
const SSL_NOT_VERIFIED =
  'The custom domain is not verified yet: add its TXT record and verify it, then the certificate is issued';
const domainTaken = (domain: string) => `The domain ${domain} is already in use by another account`;

/** Refuses a domain verified or attached by another account (the same account may move it). */
export async function domainFree(db: Db, userId: string, domain: string) {
  const holders = await findDomainHolders(db, domain);
  if (holders.some((holder) => holder.user_id !== userId)) throw new ConflictError(domainTaken(domain));
}

/** The fields of a newly added, pending domain; the account's token for it when it has one. */
export async function pendingDomain(db: Db, userId: string, domain: string) {
  return {
    custom_domain: domain,
    domain_added_at: new Date(),
    domain_status: 'pending' as const,
    domain_token: (await findDomainToken(db, userId, domain)) ?? newDomainToken(),
    domain_checked_at: null,
    domain_message: PENDING_ACTIVATION,
    ssl: null,
  };
}

export interface InstanceDomainsDeps {
  db: Db;
  /** TXT lookups that prove ownership of custom domains. */
  txtLookup: TxtLookup;
}

/**
 * Custom domains and their certificates, for the instance types whose engine has domains (WordPress and
 * n8n): a domain is recorded as pending with the TXT record that proves the account controls it, looked
 * up at once, by "Verify now" and in the background, and attached through the engine once verified.
 */
export function createInstanceDomainsService({ db, txtLookup }: InstanceDomainsDeps, ctx: InstancesContext) {
  const { publish, own, ownDeployed, capabilityOf, changeUnlessDeleting, viaDriver, refuseWhenInactive } =
    ctx;
  const domainsOf = (row: InstanceRow) => capabilityOf(row, 'domains', DOMAINS_SITES_ONLY);

  const noDomain = {
    custom_domain: null,
    domain_added_at: null,
    domain_status: null,
    domain_token: null,
    domain_checked_at: null,
    domain_message: null,
    ssl: null,
  };

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

  const storedSsl = (ssl: SslStatus): StoredSsl => ({
    status: ssl.status,
    message: ssl.message,
    lastChecked: ssl.lastChecked,
    expiresAt: ssl.expiresAt ?? null,
  });

  function sslResult(ssl: StoredSsl | null): SslResult {
    return ssl ? { ssl, status: ssl.status } : { ssl: null, status: 'none' };
  }

  return {
    /**
     * Records a custom domain for a WordPress site as pending, with the TXT record that proves the
     * account controls it; a domain verified or attached by another account is refused (409). A domain
     * it replaces is detached first. The TXT record is looked up once at once (an account moving a
     * domain between its instances already has it); otherwise the background check or "Verify now"
     * attaches the domain once the record is there.
     */
    async addDomain(userId: string, id: string, domain: string): Promise<Instance> {
      const { row, capability: domains } = await ownDeployed(userId, id, 'domains', DOMAINS_SITES_ONLY);
      await refuseWhenInactive(userId, DOMAINS_WHEN_INACTIVE);
      await domainFree(db, userId, domain);
      if (row.custom_domain === domain) return toInstance(await checkDomain(row, { throwConflict: true }));
      await refuseWhileBusy(row);
      const urls =
        row.domain_status === 'attached'
          ? await viaDriver(DRIVER_FAILED.addDomain, () => domains.set(row.id, null))
          : undefined;
      const pending = await pendingDomain(db, userId, domain);
      const updated = await changeUnlessDeleting(row.id, {
        ...pending,
        ...(urls && { url: urls.url, admin_url: urls.adminUrl }),
      });
      return toInstance(await checkDomain(updated, { throwConflict: true }));
    },

    /**
     * Checks the TXT record of the instance's custom domain now ("Verify now") and attaches the domain
     * when it proves ownership. 409 when another account holds the domain.
     */
    async verifyDomain(userId: string, id: string): Promise<Instance> {
      const row = await own(userId, id);
      domainsOf(row);
      if (row.status === 'deleting') throw new ConflictError('The instance is being deleted');
      if (!row.custom_domain) throw new ValidationError(NO_CUSTOM_DOMAIN);
      return toInstance(await checkDomain(row, { throwConflict: true }));
    },

    /**
     * The background check: looks at the pending domains that are due (a schedule that slows down with
     * their age; failed after PENDING_WINDOW_HOURS) and attaches verified ones, at most `limit` a run.
     * Answers how many it looked at.
     */
    async checkDueDomains(limit = 50): Promise<number> {
      const rows = await findDomainsDue(db, limit);
      for (const row of rows) await checkDomain(row, { throwConflict: false });
      return rows.length;
    },

    /** Detaches the custom domain (the site goes back to its temporary URL); a pending one is dropped. */
    async removeDomain(userId: string, id: string): Promise<Instance> {
      const row = await own(userId, id);
      const domains = domainsOf(row);
      await refuseWhenInactive(userId, REMOVE_DOMAIN_WHEN_INACTIVE);
      if (row.status === 'deleting') throw new ConflictError('The instance is being deleted');
      if (!row.custom_domain) throw new ValidationError(NO_CUSTOM_DOMAIN);
      let urls: SiteUrls | undefined;
      if (row.domain_status === 'attached' || row.domain_status === 'verified') {
        if (row.domain_status === 'attached') await ownDeployed(userId, id, 'domains', DOMAINS_SITES_ONLY);
        await refuseWhileBusy(row);
        if (row.deployed_at !== null)
          urls = await viaDriver(DRIVER_FAILED.removeDomain, () => domains.set(row.id, null));
      }
      return toInstance(
        await changeUnlessDeleting(row.id, {
          ...noDomain,
          ...(urls && { url: urls.url, admin_url: urls.adminUrl }),
        }),
      );
    },

    /** Probes the custom domain's certificate now and stores the result (shown in customDomain.ssl). */
    async sslStatus(userId: string, id: string): Promise<SslResult> {
      const { row, capability: domains } = await ownDeployed(userId, id, 'domains', SSL_CUSTOM_ONLY);
      if (!row.custom_domain) return sslResult(null);
      if (row.domain_status !== 'attached') {
        return {
          ssl: {
            status: 'Pending',
            message: PENDING_ACTIVATION,
            lastChecked: new Date().toISOString(),
            expiresAt: null,
          },
          status: 'Pending',
        };
      }
      const probed = await viaDriver(DRIVER_FAILED.checkSsl, () => domains.sslStatus(row.id));
      const ssl = probed ? storedSsl(probed) : null;
      await updateInstance(db, row.id, { ssl }, { statusNot: 'deleting' });
      return sslResult(ssl);
    },

    /** Has the certificate issued again; answers the status right after. */
    async requestSsl(userId: string, id: string): Promise<SslResult> {
      const { row, capability: domains } = await ownDeployed(userId, id, 'domains', SSL_CUSTOM_ONLY);
      await refuseWhenInactive(userId, SSL_WHEN_INACTIVE);
      if (!row.custom_domain) throw new ValidationError(SSL_CUSTOM_ONLY);
      if (row.domain_status !== 'attached') throw new ConflictError(SSL_NOT_VERIFIED);
      const ssl = storedSsl(await viaDriver(DRIVER_FAILED.requestSsl, () => domains.requestSsl(row.id)));
      await updateInstance(db, row.id, { ssl }, { statusNot: 'deleting' });
      return sslResult(ssl);
    },
  };
}
