import { Alert } from '@mui/material';
import type { Instance } from '../../api/instances.queries.ts';
import { PASSWORD_CHANGE_DISABLED } from './instance-catalog.ts';

/** What an instance has besides running (the server's TYPE_FEATURES): SFTP, backups, usage, … */
type InstanceFeature = keyof Instance['features'];

/** Said when the server answers a feature unavailable without its reason (it always gives one). */
const NOT_OFFERED = 'Not offered on this server';

/**
 * Why this server does not offer `feature` for the instance, in the customer's words (its engine's,
 * from the instance's `features`); null where it does, and where the type has no such feature at all.
 */
export function unavailableReason(instance: Instance, feature: InstanceFeature): string | null {
  const offer = instance.features[feature];
  return offer && !offer.available ? (offer.reason ?? NOT_OFFERED) : null;
}

/** Why Change Password is disabled (a lapsed subscription, not offered here, not running yet), or null. */
export function passwordChangeBlocked(instance: Instance, inactive: boolean, deployed: boolean) {
  if (inactive) return PASSWORD_CHANGE_DISABLED;
  return (
    unavailableReason(instance, 'password') ?? (deployed ? null : 'Available once the instance is running')
  );
}

/**
 * What stands where a feature would be when this server does not offer it: the reason, quietly (an
 * outlined notice that reads well on dark and light), never an error.
 */
export function FeatureUnavailable({ reason }: { reason: string }) {
  return (
    <Alert severity="info" variant="outlined" role="note">
      {reason}
    </Alert>
  );
}
