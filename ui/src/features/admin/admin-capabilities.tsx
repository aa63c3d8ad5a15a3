import { Box, Chip, Stack, Typography } from '@mui/material';
import { useOperatorCapabilitiesQuery } from '../../api/admin.queries.ts';
import { LoadState } from '../../components/load-state.tsx';
import { RefreshButton } from '../../components/refresh-button.tsx';
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
      text="What customers can deploy on this server; for the others, what they read and what to fix."
      control={<RefreshButton query={query} />}
    >
      <LoadState query={query} loading="Loading..." failed="The instance types could not be loaded." />
      <Stack component="ul" spacing={2} sx={{ m: 0, p: 0, listStyle: 'none' }}>
        {(query.data ?? []).map((type) => (
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
