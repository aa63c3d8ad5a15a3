import type { Db } from '../../../db/database.ts';
import type { InstanceRow } from '../../../db/tables/instances.ts';
import type { ProvisioningDriver } from '../../../provisioning/driver.ts';
import type { Deployment, SiteUrls } from '../../../provisioning/engine.ts';
import { openSecret, type StoredSecret } from '../instance-secrets.ts';
import { findCredentials, findInstanceById, updateInstance } from '../instances.repository.ts';
import { attempt } from '../queue/instance-job-attempts.ts';
import {
  FAILED,
  type InstanceTaskContext,
  type InstanceTaskDeps,
  label,
  type Step,
} from '../queue/instance-task-context.ts';
import { deployRequestOf } from './deploy-specs.ts';
import { recordDeployment } from './deployment-record.ts';

/** The row's custom domain when its ownership is proven (verified or attached), else null. */
async function wantedDomain(db: Db, id: string): Promise<string | null> {
  const now = await findInstanceById(db, id);
  return now?.domain_status === 'verified' || now?.domain_status === 'attached' ? now.custom_domain : null;
}

/** The domain a deployment serves over HTTPS, if any. */
const servedDomain = (urls: SiteUrls | undefined) =>
  urls?.url.startsWith('https://') ? new URL(urls.url).hostname : null;

/**
 * Deploys (or brings back) the instance through its type's engine with its stored passwords and keys
 * (the request its kind makes), so a retry or a reconcile gives the very same credentials; then brings
 * its custom domain (when its type has domains) and its suspension in line with the row. Answers the
 * deployment and the domain it serves, if any.
 */
async function deployToDriver(
  driver: ProvisioningDriver,
  db: Db,
  row: InstanceRow,
  secret: StoredSecret,
): Promise<{ deployment: Deployment; attachedDomain?: string }> {
  const request = deployRequestOf(row, secret);
  const engine = driver.engine(request.type);
  const deployment = await engine.deploy(request.spec);
  if (engine.domains && !row.suspended) {
    // The domain as the row says now (a synchronous change may have landed since the job read it);
    // only a domain whose ownership was proven (verified or attached) is served.
    const wanted = await wantedDomain(db, row.id);
    if (servedDomain(deployment.urls) !== wanted) deployment.urls = await engine.domains.set(row.id, wanted);
  }
  if (row.suspended) await engine.suspend(row.id);
  else if (row.deployed_at !== null) await engine.resume(row.id);
  return { deployment, attachedDomain: servedDomain(deployment.urls) ?? undefined };
}

/**
 * The deploy task's step (instances.tasks.ts): creates the tenant (or makes sure it exists) with the
 * stored password, applies suspension and the custom domain, then records the running instance.
 */
export function deployStep(
  { db, driver, cipher, notifications }: InstanceTaskDeps,
  { publish, giveUp, failureMessage }: InstanceTaskContext,
): Step {
  return async (row, payload, helpers) => {
    if (row.status === 'deleting') return;
    const stored = await findCredentials(db, row.id);
    if (!stored) return giveUp('deploy', row, `${FAILED.deploy}: its credentials are missing`);
    const secret = openSecret(cipher, row.id, stored.secret);
    const outcome = await attempt(payload, helpers, () => deployToDriver(driver, db, row, secret));
    if (!outcome.ok) {
      const message = failureMessage(FAILED.deploy, outcome.error, { operation: 'deploy', row, helpers });
      await giveUp('deploy', row, message);
      return outcome.lingering;
    }
    const { deployment, attachedDomain } = outcome.value;
    const { urls } = deployment;
    await db.transaction().execute(async (trx) => {
      // A verified domain the deploy attached is attached now.
      if (attachedDomain) {
        await updateInstance(
          trx,
          row.id,
          { domain_status: 'attached', domain_message: 'Verified and attached', ssl: null },
          { domainVerified: attachedDomain },
        );
      }
      const updated = await updateInstance(
        trx,
        row.id,
        {
          status: row.suspended ? 'suspended' : 'running',
          status_message: null,
          deployed_at: row.deployed_at ?? new Date(),
          ...(urls && { url: urls.url, admin_url: urls.adminUrl }),
        },
        // Not over a delete, nor over a restore accepted meanwhile: its job, next in the instance's
        // queue, sets running once the data is back (a redeploy at start used to drop it unseen).
        { statusIn: ['deploying', 'running', 'suspended', 'error'] },
      );
      if (!updated) return;
      await recordDeployment(trx, { cipher, notifications }, row, secret, deployment);
      if (row.status === 'deploying') {
        await notifications.notify(
          row.user_id,
          {
            type: 'instance',
            title: 'Instance ready',
            message: `Your ${label(row)} is ready. Its connection details are on the Instances page.`,
          },
          trx,
        );
      }
      await publish(trx, updated);
    });
  };
}
