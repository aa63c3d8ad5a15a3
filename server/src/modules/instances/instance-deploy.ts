import type { z } from '@hono/zod-openapi';
import type { DbOrTx } from '../../db/database.ts';
import type { InstanceRow } from '../../db/tables/instances.ts';
import { PlanLimitError, ValidationError } from '../../lib/errors.ts';
import { ProvisioningUnavailableError } from '../../provisioning/driver.ts';
import { generatePassword } from '../../provisioning/tenant-names.ts';
import { NOTHING_STARTING } from './driver-startup.ts';
import { TYPE_INFO } from './instance-catalog.ts';
import { DOMAINS_SITES_ONLY } from './instance-domain-checks.ts';
import { DomainSchema } from './instance-domains.schemas.ts';
import { domainFree, pendingDomain } from './instance-domains.service.ts';
import { requireFeature } from './instance-features.ts';
import { enqueueInstanceJob, type OperationBudgets } from './instance-jobs.ts';
import { checkResources } from './instance-resources.ts';
import { generateN8nKey, sealSecret } from './instance-secrets.ts';
import type { InstancesContext } from './instances.context.ts';
import type { InstancesDeps } from './instances.deps.ts';
import { insertCredentials, insertInstance } from './instances.repository.ts';
import {
  type DeployBody,
  type Instance,
  N8nFieldsSchema,
  WordPressFieldsSchema,
} from './instances.schemas.ts';
import { DEFAULT_PHP_VERSION, phpChoices, phpUnavailable } from './php-versions.ts';

const CANNOT_CREATE = 'Cannot create instance. Please check your subscription status.';

/** A deploy that a restore follows (deleted-instance-backups.service.ts). */
export interface RestoreOnDeploy {
  /** n8n: the key the backup's credentials are encrypted with (the new instance runs with it). */
  n8nKey?: string;
  /** Adds the restore's job, in the deploy's transaction, after the deploy's job. */
  afterDeploy(trx: DbOrTx, row: InstanceRow): Promise<void>;
}

/** Deploying an instance: the fields its type needs, checked, then the row, its secrets and its job. */
export function instanceDeploy(deps: InstancesDeps, ctx: InstancesContext, budgets: OperationBudgets) {
  const { db, driver, cipher, subscriptions } = deps;
  const startup = deps.startup ?? NOTHING_STARTING;
  const log = deps.log ?? ((line: string) => console.error(`[berth] ${line}`));
  const { publish, toInstance } = ctx;

  const firstIssue = (error: z.ZodError) => error.issues[0]?.message ?? 'Invalid request';

  /** The custom domain a site is deployed with, checked and lower-cased; undefined for a temporary URL. */
  function customDomainOf(body: DeployBody): string | undefined {
    if (body.domainType !== 'Custom Domain') return undefined;
    if (!body.customDomain) throw new ValidationError('Custom domain is required');
    const checked = DomainSchema.safeParse(body.customDomain);
    if (!checked.success) throw new ValidationError(firstIssue(checked.error));
    return checked.data;
  }

  /**
   * The WordPress fields of a deploy, the PHP version checked against those the host has (the choices
   * GET /capabilities offers). While the driver is still starting and the host has none yet (packages
   * being installed), the version asked for (else the default) is taken; the deploy job's driver call
   * checks it once the start has ended.
   */
  async function wordpressFields(body: DeployBody, starting: boolean) {
    const parsed = WordPressFieldsSchema.safeParse(body);
    if (!parsed.success) throw new ValidationError(firstIssue(parsed.error));
    const fields = parsed.data;
    const choices = await phpChoices(driver, false);
    const versions =
      starting && choices.versions.length === 0
        ? [fields.phpversion ?? DEFAULT_PHP_VERSION]
        : choices.versions;
    const phpVersion = fields.phpversion ?? choices.default ?? versions[0];
    if (!phpVersion || !versions.includes(phpVersion)) {
      const message = phpUnavailable(phpVersion ?? DEFAULT_PHP_VERSION, versions);
      throw new ValidationError(message, { fieldErrors: { phpversion: [message] } });
    }
    const domain = customDomainOf(body);
    return {
      settings: { title: fields.title, adminUser: fields.username, adminEmail: fields.email, phpVersion },
      adminPassword: fields.password,
      domain,
    };
  }

  /**
   * The n8n fields of a deploy: the owner account n8n is set up with (e-mail, password by n8n's own
   * rules, the username as first name), and optionally a custom domain. Kept in the `site` settings:
   * title = instance name, adminUser = first name, adminEmail = the owner's e-mail, no PHP version.
   */
  function n8nFields(body: DeployBody) {
    const parsed = N8nFieldsSchema.safeParse(body);
    if (!parsed.success) throw new ValidationError(firstIssue(parsed.error));
    const fields = parsed.data;
    const domain = customDomainOf(body);
    const firstName = fields.username ?? fields.email.split('@')[0] ?? 'Owner';
    return {
      settings: { title: body.name, adminUser: firstName, adminEmail: fields.email, phpVersion: '' },
      adminPassword: fields.password,
      domain,
    };
  }

  return {
    /**
     * Records the instance (status deploying) with a generated password, encrypted, and adds its deploy
     * job in the same transaction; the job creates the tenant with that very password, so a retry gives
     * the same credentials. Refused with 409 when the type cannot be provisioned here, and with 403 when
     * the plan allows no more instances (decided under a lock on the user's subscription). While the
     * driver is still starting, a type the start may bring up is accepted: its job waits for the start.
     */
    async deploy(userId: string, body: DeployBody, restoring?: RestoreOnDeploy): Promise<Instance> {
      const region = (await driver.regions()).find((r) => r.id === body.region);
      if (!region?.available) throw new ValidationError(region?.reason ?? 'Please select a valid region');
      const capability = (await driver.capabilities())[body.type];
      const starting = !capability.available && startup.mayProvide(body.type);
      if (!capability.available && !starting) {
        log(`deploy of ${body.type} refused: ${capability.detail ?? capability.reason}`);
        throw new ProvisioningUnavailableError(body.type, capability);
      }
      await checkResources(driver, body.type, body.memory, body.cpu);
      const site =
        body.type === 'wordpress'
          ? await wordpressFields(body, starting)
          : body.type === 'n8n'
            ? n8nFields(body)
            : undefined;
      // A custom domain where this server offers none: 409 with its reason (not once the start is over).
      if (site?.domain && !starting) requireFeature(driver.engine(body.type), 'domains', DOMAINS_SITES_ONLY);
      if (site?.domain) await domainFree(db, userId, site.domain);
      const domainFields = site?.domain ? await pendingDomain(db, userId, site.domain) : {};
      return db.transaction().execute(async (trx) => {
        if (!(await subscriptions.lockCanCreate(userId, trx)).canCreate)
          throw new PlanLimitError(CANNOT_CREATE);
        const row = await insertInstance(trx, {
          user_id: userId,
          name: body.name,
          description: body.description ?? '',
          type: body.type,
          category: TYPE_INFO[body.type].category,
          region: body.region,
          memory: body.memory,
          cpu: body.cpu,
          status: 'deploying',
          site: site?.settings ?? null,
          ...domainFields,
        });
        const secret =
          body.type === 'n8n' && site
            ? // n8n: the owner password and the instance's encryption key (generated once, kept encrypted).
              {
                password: generatePassword(),
                adminPassword: site.adminPassword,
                n8nKey: restoring?.n8nKey ?? generateN8nKey(),
              }
            : site
              ? {
                  password: generatePassword(),
                  sftpPassword: generatePassword(),
                  adminPassword: site.adminPassword,
                }
              : { password: generatePassword() };
        await insertCredentials(trx, row.id, sealSecret(cipher, row.id, secret));
        await enqueueInstanceJob(trx, 'deploy', row.id, budgets);
        await restoring?.afterDeploy(trx, row);
        await publish(trx, row);
        return toInstance(row);
      });
    },
  };
}
