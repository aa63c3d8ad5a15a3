import type { Db } from '../../../db/database.ts';
import type { StoredSsl } from '../../../db/tables/instances.ts';
import { ConflictError, ValidationError } from '../../../lib/errors.ts';
import type { SiteUrls, SslStatus } from '../../../provisioning/engine.ts';
import { newDomainToken, PENDING_ACTIVATION } from '../domain-verification.ts';
import type { SslResult } from '../instance-domains.schemas.ts';
import { DRIVER_FAILED, type InstancesContext } from '../instances.context.ts';
import {
  findDomainHolders,
  findDomainsDue,
  findDomainToken,
  updateInstance,
} from '../instances.repository.ts';
import type { Instance } from '../instances.schemas.ts';
import {
  DOMAINS_SITES_ONLY,
  domainChecks,
  domainTaken,
  type InstanceDomainsDeps,
  noDomain,
} from './instance-domain-checks.ts';

const DOMAINS_WHEN_INACTIVE = 'Adding domains is disabled.';
const REMOVE_DOMAIN_WHEN_INACTIVE = 'Your subscription is inactive. Removing domains is disabled.';
const SSL_WHEN_INACTIVE = 'Your subscription is inactive. Requesting SSL is disabled.';
const SSL_CUSTOM_ONLY = 'SSL is only available for custom domains';
const NO_CUSTOM_DOMAIN = 'The instance has no custom domain';
const SSL_NOT_VERIFIED =
  'The custom domain is not verified yet: add its TXT record and verify it, then the certificate is issued';

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

const storedSsl = (ssl: SslStatus): StoredSsl => ({
  status: ssl.status,
  message: ssl.message,
  lastChecked: ssl.lastChecked,
  expiresAt: ssl.expiresAt ?? null,
});

function sslResult(ssl: StoredSsl | null): SslResult {
  return ssl ? { ssl, status: ssl.status } : { ssl: null, status: 'none' };
}

/**
 * Custom domains and their certificates, for the instance types whose engine has domains (WordPress and
 * n8n): a domain is recorded as pending with the TXT record that proves the account controls it, looked
 * up at once, by "Verify now" and in the background, and attached through the engine once verified.
 */
export type InstanceDomainsService = ReturnType<typeof createInstanceDomainsService>;

export function createInstanceDomainsService(deps: InstanceDomainsDeps, ctx: InstancesContext) {
  const { db } = deps;
  const { own, ownDeployed, changeUnlessDeleting, viaDriver, refuseWhenInactive, toInstance } = ctx;
  const { domainsOf, checkDomain, refuseWhileBusy } = domainChecks(deps, ctx);

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
