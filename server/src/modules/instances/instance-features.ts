import { ConflictError, ValidationError } from '../../lib/errors.ts';
import type { InstanceEngine } from '../../provisioning/engine.ts';
import { type Feature, TYPE_FEATURES } from '../../provisioning/instance-types.ts';
import type { InstanceFeatures } from './instances.schemas.ts';

/**
 * What customers can use of an instance besides running it, as its engine declares it
 * (engine.ts `features`): the API answers each feature of the type as available or with the engine's
 * reason (the instance's `features`), and every endpoint of a feature declared unavailable answers 409
 * with that reason, never a generic 400 or a 500.
 */

/** The capability object a feature comes with (engine.ts: `true` only with the object). */
const CAPABILITY_OF = {
  password: 'password',
  domains: 'domains',
  backups: 'backups',
  storage: 'storage',
} as const satisfies Partial<Record<Feature, keyof InstanceEngine>>;

/** What a customer reads when an engine offers a feature without saying so or without its means. */
const NOT_OFFERED: Record<Feature, string> = {
  password: 'Password changes are not offered on this server',
  domains: 'Custom domains are not offered on this server',
  sftp: 'SFTP is not offered on this server',
  storage: 'Storage figures are not offered on this server',
  usage: 'Usage measurements are not offered on this server',
  backups: 'Backups are not offered on this server',
  databaseAdmin: 'phpMyAdmin is not offered on this server',
};

/**
 * A feature this server does not offer for the instance's type (answered as a 409): the message and
 * `details.reason` are the engine's words for the customer, `details.feature` names it.
 */
export class FeatureUnavailableError extends ConflictError {
  constructor(feature: Feature, reason: string) {
    super(reason, { feature, reason });
  }
}

/** Whether the type has the feature by its nature (TYPE_FEATURES), whatever the driver. */
function typeHas(engine: Pick<InstanceEngine, 'type'>, feature: Feature): boolean {
  return (TYPE_FEATURES[engine.type] as readonly Feature[]).includes(feature);
}

/**
 * `true` where the engine offers the feature, else the customer's reason: the engine's own, or
 * NOT_OFFERED when it declares `true` without the capability object that feature needs (or nothing).
 */
export function offerOf(engine: InstanceEngine, feature: Feature): true | string {
  const declared = engine.features[feature];
  if (declared === undefined) return NOT_OFFERED[feature];
  if (declared !== true) return declared;
  const capability = feature in CAPABILITY_OF ? CAPABILITY_OF[feature as keyof typeof CAPABILITY_OF] : null;
  return capability && !engine[capability] ? NOT_OFFERED[feature] : true;
}

/** Each feature of the engine's type, available or with the reason (the instance's `features`). */
export function featuresOfEngine(engine: InstanceEngine): InstanceFeatures {
  return Object.fromEntries(
    TYPE_FEATURES[engine.type].map((feature) => {
      const offer = offerOf(engine, feature);
      return [
        feature,
        offer === true ? { available: true, reason: null } : { available: false, reason: offer },
      ];
    }),
  );
}

/**
 * Refuses a request for `feature`: 400 `lacking` when the type has no such feature at all (a database
 * has no domains), 409 with the engine's reason when this server does not offer it.
 */
export function requireFeature(engine: InstanceEngine, feature: Feature, lacking: string): void {
  if (!typeHas(engine, feature)) throw new ValidationError(lacking);
  const offer = offerOf(engine, feature);
  if (offer !== true) throw new FeatureUnavailableError(feature, offer);
}
