import type { DbOrTx } from '../../../db/database.ts';
import type { InstanceRow } from '../../../db/tables/instances.ts';
import { PlanLimitError, ValidationError } from '../../../lib/errors.ts';
import { ProvisioningUnavailableError } from '../../../provisioning/driver.ts';
import { generatePassword } from '../../../provisioning/tenant-names.ts';
import { DOMAINS_SITES_ONLY } from '../domains/instance-domain-checks.ts';
import { domainFree, pendingDomain } from '../domains/instance-domains.service.ts';
import { requireFeature } from '../instance-features.ts';
import { checkResources } from '../instance-resources.ts';
import { sealSecret } from '../instance-secrets.ts';
import type { InstancesContext } from '../instances.context.ts';
import type { InstancesDeps } from '../instances.deps.ts';
import { insertCredentials, insertInstance } from '../instances.repository.ts';
import type { DeployBody, Instance } from '../instances.schemas.ts';
import { kindOf } from '../kinds/kinds.ts';
import { NOTHING_STARTING } from '../queue/driver-startup.ts';
import { enqueueInstanceJob, type OperationBudgets } from '../queue/instance-jobs.ts';

const CANNOT_CREATE = 'Cannot create instance. Please check your subscription status.';

/** A deploy that a restore follows (deleted-instance-backups.service.ts). */
export interface RestoreOnDeploy {
  /** A kind with its own key (n8n): the key the backup's data is encrypted with (the new one runs with it). */
  keptKey?: string;
  /** Adds the restore's job, in the deploy's transaction, after the deploy's job. */
  afterDeploy(trx: DbOrTx, row: InstanceRow): Promise<void>;
}

/** A deploy as the service offers it (a restore into a new instance deploys through it too). */
export type DeployInstance = (
  userId: string,
  body: DeployBody,
  restoring?: RestoreOnDeploy,
) => Promise<Instance>;

/** What a deploy uses: the module's dependencies, its shared context and the jobs' budgets. */
export interface DeployUse {
  deps: InstancesDeps;
  ctx: Pick<InstancesContext, 'publish' | 'toInstance'>;
  budgets: OperationBudgets;
}

/**
 * Deploys an instance: records it (status deploying) with the fields its kind checked and a generated
 * password, its secret encrypted, and adds its deploy job in the same transaction; the job creates the
 * tenant with that very password, so a retry gives the same credentials. Refused with 409 when the type
 * cannot be provisioned here, and with 403 when the plan allows no more instances (decided under a lock
 * on the user's subscription). While the driver is still starting, a type the start may bring up is
 * accepted: its job waits for the start.
 */
export async function deployInstance(
  { deps, ctx, budgets }: DeployUse,
  userId: string,
  body: DeployBody,
  restoring?: RestoreOnDeploy,
): Promise<Instance> {
  const { db, driver, cipher, subscriptions } = deps;
  const startup = deps.startup ?? NOTHING_STARTING;
  const log = deps.log ?? ((line: string) => console.error(`[berth] ${line}`));
  const region = (await driver.regions()).find((r) => r.id === body.region);
  if (!region?.available) throw new ValidationError(region?.reason ?? 'Please select a valid region');
  const capability = (await driver.capabilities())[body.type];
  const starting = !capability.available && startup.mayProvide(body.type);
  if (!capability.available && !starting) {
    log(`deploy of ${body.type} refused: ${capability.detail ?? capability.reason}`);
    throw new ProvisioningUnavailableError(body.type, capability);
  }
  await checkResources(driver, body.type, body.memory, body.cpu);
  const kind = kindOf(body.type);
  const fields = await kind.deployFields(body, { driver, starting, keptKey: restoring?.keptKey });
  const { domain } = fields;
  // A custom domain where this server offers none: 409 with its reason (not once the start is over).
  if (domain && !starting) requireFeature(driver.engine(body.type), 'domains', DOMAINS_SITES_ONLY);
  if (domain) await domainFree(db, userId, domain);
  const domainFields = domain ? await pendingDomain(db, userId, domain) : {};
  return db.transaction().execute(async (trx) => {
    if (!(await subscriptions.lockCanCreate(userId, trx)).canCreate) throw new PlanLimitError(CANNOT_CREATE);
    const row = await insertInstance(trx, {
      user_id: userId,
      name: body.name,
      description: body.description ?? '',
      type: body.type,
      category: kind.entry.category,
      region: body.region,
      memory: body.memory,
      cpu: body.cpu,
      status: 'deploying',
      settings: fields.settings,
      ...domainFields,
    });
    // The database password, and what the kind keeps besides (generated once, kept encrypted).
    const secret = { password: generatePassword(), ...fields.secret };
    await insertCredentials(trx, row.id, sealSecret(cipher, row.id, secret));
    await enqueueInstanceJob(trx, 'deploy', row.id, budgets);
    await restoring?.afterDeploy(trx, row);
    await ctx.publish(trx, row);
    return ctx.toInstance(row);
  });
}
