import { Box, Grid, Stack, Typography } from '@mui/material';
import type { Instance } from '../../api/instances.queries.ts';
import { formatDateTime } from '../subscription/standing.ts';
import { BackupsCard } from './backups-tab.tsx';
import { CustomDomainCard, SslCertificateCard } from './domain-cards.tsx';
import { StatusChip } from './instance-badges.tsx';
import { hasSiteAdmin, isDatabase, regionLabel } from './instance-catalog.ts';
import { Rows, SettingsCard, SideCard } from './instance-detail-cards.tsx';
import { useAppliedLimits } from './usage-tab.tsx';
import { WordPressCard } from './wordpress-panels.tsx';

/**
 * The Configuration card: region, memory and vCPU, then what applies to the instance in words
 * (its own, enforced limits; or, on a shared database server, which ones bound it and which not).
 */
function ConfigurationCard({ instance }: { instance: Instance }) {
  const { memory, cpu } = instance.deploymentConfig;
  // A database made before servers per instance shares its server: the card says which limits are its own.
  const { limits, sharedServer: shared } = useAppliedLimits(instance);
  return (
    <SideCard id="configuration" title="Configuration">
      <Rows
        rows={[
          ['Region', `${regionLabel(instance.region)} (${instance.region})`],
          ['Memory', memory],
          ['vCPU', cpu],
        ]}
      />
      {limits.length > 0 && (
        <Box sx={{ mt: 2 }}>
          <Typography variant="subtitle2" component="h3">
            {shared ? 'Limits on a shared server' : 'Limits'}
          </Typography>
          {shared && (
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
              This database runs on a server shared with other databases. The limits marked "Enforced" are its
              own; the others are shared or can be changed by a session.
            </Typography>
          )}
          <Rows
            rows={limits.map((limit) => [
              limit.label,
              shared ? `${limit.value}${limit.enforced ? ' (Enforced)' : ''}` : limit.value,
            ])}
          />
        </Box>
      )}
    </SideCard>
  );
}

/** The Overview tab: WordPress, settings, domain and certificate, information and configuration. */
export function Overview({
  instance,
  inactive,
  editingDomain,
  setEditingDomain,
}: {
  instance: Instance;
  inactive: boolean;
  editingDomain: boolean;
  setEditingDomain(editing: boolean): void;
}) {
  const database = isDatabase(instance);
  const siteAdmin = hasSiteAdmin(instance.type);
  return (
    <Grid container spacing={3}>
      <Grid size={{ xs: 12, md: 7 }}>
        <Stack spacing={3}>
          {siteAdmin && <WordPressCard instance={instance} inactive={inactive} />}
          {!siteAdmin && instance.features.backups && <BackupsCard instance={instance} inactive={inactive} />}
          <SettingsCard key={instance.id} instance={instance} />
        </Stack>
      </Grid>
      <Grid size={{ xs: 12, md: 5 }}>
        <Stack spacing={3}>
          {!database && (
            <CustomDomainCard
              instance={instance}
              inactive={inactive}
              editing={editingDomain}
              onEditingChange={setEditingDomain}
            />
          )}
          {!database && <SslCertificateCard instance={instance} inactive={inactive} />}
          <SideCard id="instance-information" title="Instance Information">
            <Rows
              rows={[
                ['Status', <StatusChip key="status" status={instance.status} />],
                ['URL', instance.url ?? (database ? 'None (database)' : 'Not available')],
                ['Created', formatDateTime(new Date(instance.createdAt))],
                ['Last updated', formatDateTime(new Date(instance.updatedAt))],
              ]}
            />
          </SideCard>
          <ConfigurationCard instance={instance} />
        </Stack>
      </Grid>
    </Grid>
  );
}
