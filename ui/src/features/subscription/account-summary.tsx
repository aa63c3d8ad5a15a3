import type { User } from '@berth/openapi';
import { Alert, Stack, Typography } from '@mui/material';
import { currentPlanName, INACTIVE_TEXT, instancesUsage, standingOf } from './standing.ts';

function Row({ label, value }: { label: string; value: string }) {
  return (
    <Stack direction="row" sx={{ justifyContent: 'space-between', gap: 2 }}>
      <Typography variant="body2" color="text.secondary">
        {label}
      </Typography>
      <Typography variant="body2" sx={{ fontWeight: 600 }}>
        {value}
      </Typography>
    </Stack>
  );
}

/**
 * The account menu's facts of the subscription: the current plan, the instances used of those allowed,
 * and the notice of an inactive subscription. The standing is read when the menu renders.
 */
export function AccountSummary({ user }: { user: User }) {
  const sub = user.subscription;
  const standing = standingOf(sub, new Date());
  return (
    <Stack spacing={1} sx={{ px: 2, py: 1.5 }}>
      <Row label="Current plan" value={currentPlanName(sub, standing)} />
      <Row label="Instances used" value={instancesUsage(standing, user.instancesUsed, sub.maxInstances)} />
      {standing === 'inactive' && (
        <Alert severity="error" variant="outlined" sx={{ py: 0 }}>
          {INACTIVE_TEXT}
        </Alert>
      )}
    </Stack>
  );
}
