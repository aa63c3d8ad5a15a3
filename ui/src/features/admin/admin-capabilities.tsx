import type { Schemas } from '@berth/openapi';
import { Alert, AlertTitle, Box, Chip, Stack, Typography } from '@mui/material';
import { useOperatorCapabilitiesQuery } from '../../api/admin.queries.ts';
import { LoadState } from '../../components/load-state.tsx';
import { RefreshButton } from '../../components/refresh-button.tsx';
import { formatDateTime } from '../subscription/standing.ts';
import { AdminSection } from './admin-section.tsx';

/**
 * What this server can deploy (Admin Panel → Instance types): for each type that customers cannot
 * deploy now, what they read, and the operator's reason below it (what is missing on the host, the
 * command that fixes it), which customers never see.
 */
export function AdminCapabilities() {
  const query = useOperatorCapabilitiesQuery();
  return (
    <AdminSection
      id="admin-capabilities"
      title="Instance types"
      text="What customers can deploy on this server, and where backups are kept; for the types they cannot deploy, what they read and what to fix."
      control={<RefreshButton query={query} />}
    >
      <LoadState query={query} loading="Loading..." failed="The instance types could not be loaded." />
      {query.data && <BackupPlace backups={query.data.backups} />}
      {query.data && <StoreSweep sweep={query.data.backups.sweep} />}
      <Stack component="ul" spacing={2} sx={{ m: 0, p: 0, listStyle: 'none' }}>
        {(query.data?.types ?? []).map((type) => (
          <Box
            component="li"
            key={type.type}
            aria-label={type.name}
            sx={{ p: 2, borderRadius: 2, border: 1, borderColor: 'divider' }}
          >
            <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
              <Typography component="h3" variant="subtitle1" sx={{ fontWeight: 600 }}>
                {type.name}
              </Typography>
              <Chip
                size="small"
                label={type.available ? 'Available' : 'Unavailable'}
                color={type.available ? 'success' : 'warning'}
                variant="outlined"
              />
            </Stack>
            {type.reason && (
              <Typography variant="body2" sx={{ mt: 1 }}>
                Customers read: {type.reason}
              </Typography>
            )}
            {type.detail && (
              <Typography
                variant="body2"
                color="text.secondary"
                sx={{ mt: 0.5, fontFamily: 'monospace', overflowWrap: 'anywhere' }}
              >
                {type.detail}
              </Typography>
            )}
          </Box>
        ))}
      </Stack>
    </AdminSection>
  );
}

/** Where backups are kept: a warning while they are on this server's own disk. */
function BackupPlace({ backups }: { backups: { offsite: boolean; where: string; detail: string | null } }) {
  if (backups.offsite) {
    return (
      <Alert severity="success" sx={{ mb: 2 }}>
        Backups are off-site: {backups.where}.
      </Alert>
    );
  }
  return (
    <Alert severity="warning" sx={{ mb: 2 }}>
      <AlertTitle>Backups are not off-site</AlertTitle>
      {backups.detail}
      <Typography variant="body2" sx={{ mt: 0.5, fontFamily: 'monospace', overflowWrap: 'anywhere' }}>
        Now: {backups.where}
      </Typography>
    </Alert>
  );
}

type Sweep = Schemas['OperatorInstanceCapabilities']['backups']['sweep'];

/**
 * What the last sweep of the backup store found: places no backup names (orphans, removed after their
 * grace period) and backups whose files are missing (which the operator should look into).
 */
function StoreSweep({ sweep }: { sweep: Sweep }) {
  if (!sweep) {
    return (
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        The backup store has not been swept for orphans yet.
      </Typography>
    );
  }
  const clean = sweep.orphans === 0 && sweep.missing === 0;
  const when = formatDateTime(new Date(sweep.sweptAt));
  return (
    <Alert severity={sweep.missing > 0 ? 'error' : clean ? 'success' : 'warning'} sx={{ mb: 2 }}>
      <AlertTitle>Backup store swept {when}</AlertTitle>
      <Box component="ul" sx={{ m: 0, pl: 2.5 }}>
        <li>
          {sweep.orphans} {sweep.orphans === 1 ? 'place' : 'places'} in the store no backup names (removed{' '}
          {sweep.graceDays} days after they are found; {sweep.removed} removed in this sweep)
        </li>
        <li>
          {sweep.missing} {sweep.missing === 1 ? 'backup misses' : 'backups miss'} files in the store
          {sweep.missing > 0 ? ' (their ids are in the server log)' : ''}
        </li>
      </Box>
    </Alert>
  );
}
