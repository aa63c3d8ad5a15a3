import {
  Alert,
  Box,
  Card,
  CardContent,
  CircularProgress,
  Grid,
  LinearProgress,
  Stack,
  Tab,
  Tabs,
  Typography,
} from '@mui/material';
import { useEffect, useState } from 'react';
import { type Instance, useInstanceAccessQuery, useSiteStorageQuery } from '../../api/instances.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { formatSize } from './backup-list.tsx';
import { BackupsTab } from './backups-tab.tsx';
import { CredentialField } from './credential-field.tsx';
import { isDeployed } from './instance-actions.tsx';
import { FeatureUnavailable, unavailableReason } from './instance-features.tsx';
import { AddonsTab } from './wordpress-addons-tab.tsx';

/** The SFTP port when the server names none. */
const DEFAULT_SFTP_PORT = 22;

/** From this share of its storage on, the site is warned that writes will soon fail. */
const STORAGE_WARNING_SHARE = 0.9;
export const STORAGE_FULL_HINT =
  'Storage almost full: once it is full, uploads and SFTP writes fail. Delete files you no longer need over SFTP, or unused media in WordPress.';

/** The site's disk: used of its size, a warning when nearly full; why not, where this server shows none. */
function StorageMeter({ instance }: { instance: Instance }) {
  const notOffered = unavailableReason(instance, 'storage');
  const storage = useSiteStorageQuery(instance.id, notOffered === null);
  if (notOffered)
    return (
      <Stack spacing={1} sx={{ mt: 3 }}>
        <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 700 }}>
          Storage
        </Typography>
        <FeatureUnavailable reason={notOffered} />
      </Stack>
    );
  if (!storage.data) return null;
  const { usedBytes, limitBytes } = storage.data;
  const share = Math.min(1, usedBytes / limitBytes);
  return (
    <Stack spacing={1} sx={{ mt: 3 }}>
      <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 700 }}>
        Storage
      </Typography>
      <LinearProgress
        variant="determinate"
        value={share * 100}
        color={share >= STORAGE_WARNING_SHARE ? 'warning' : 'primary'}
        aria-label="Storage used"
        sx={{ height: 8, borderRadius: 4 }}
      />
      <Typography variant="body2" color="text.secondary">
        {formatSize(usedBytes)} of {formatSize(limitBytes)} used
      </Typography>
      {share >= STORAGE_WARNING_SHARE && <Alert severity="warning">{STORAGE_FULL_HINT}</Alert>}
    </Stack>
  );
}

/** What the Database column says when the site's database answers only to the site itself. */
export const PRIVATE_SITE_DATABASE =
  'This site’s database is private: only your site connects to it. Manage its content in WordPress.';

/** Files & Database: the SFTP login and the site's database user and password. */
function FilesAndDatabaseTab({ instance }: { instance: Instance }) {
  const toast = useToast();
  const deployed = isDeployed(instance);
  const access = useInstanceAccessQuery(instance.id, deployed);
  const failed = access.isError;
  useEffect(() => {
    if (failed) toast.error('Failed to load database credentials');
  }, [failed, toast]);

  if (!deployed)
    return <Typography color="text.secondary">The credentials appear once the site runs.</Typography>;
  if (access.isPending)
    return (
      <Stack role="status" sx={{ alignItems: 'center', py: 3 }}>
        <CircularProgress aria-label="Loading credentials" />
      </Stack>
    );
  const sftp = access.data?.sftp;
  const database = access.data?.database;
  const noSftp = unavailableReason(instance, 'sftp');
  const noDatabaseAdmin = unavailableReason(instance, 'databaseAdmin');
  return (
    <Grid container spacing={3}>
      <Grid size={{ xs: 12, md: 6 }}>
        <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 700 }}>
          SFTP
        </Typography>
        {noSftp ? (
          <Box sx={{ mt: 1 }}>
            <FeatureUnavailable reason={noSftp} />
          </Box>
        ) : (
          <Box component="dl" sx={{ m: 0 }} aria-label="SFTP">
            <CredentialField label="SFTP Address" value={sftp?.ipAddress} />
            <CredentialField label="SFTP Port" value={sftp ? String(sftp.port || DEFAULT_SFTP_PORT) : null} />
            <CredentialField label="SFTP User" value={sftp?.user} />
            <CredentialField label="SFTP Password" value={sftp?.password} secret />
          </Box>
        )}
      </Grid>
      <Grid size={{ xs: 12, md: 6 }}>
        <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 700 }}>
          Database
        </Typography>
        {database ? (
          <Box component="dl" sx={{ m: 0 }} aria-label="Database">
            <CredentialField label="Database User" value={database.user} />
            <CredentialField label="Database Password" value={database.password} secret />
          </Box>
        ) : (
          <Typography color="text.secondary">
            {access.data ? PRIVATE_SITE_DATABASE : 'No database information available.'}
          </Typography>
        )}
        {noDatabaseAdmin && (
          <Box sx={{ mt: 1.5 }}>
            <FeatureUnavailable reason={noDatabaseAdmin} />
          </Box>
        )}
      </Grid>
      <Grid size={12}>
        <StorageMeter instance={instance} />
      </Grid>
    </Grid>
  );
}

const TABS = ['Files & Database', 'Backups', 'Add-ons'] as const;

/** The WordPress card of the detail page: Files & Database, Backups, Add-ons. */
export function WordPressCard({ instance, inactive }: { instance: Instance; inactive: boolean }) {
  const [tab, setTab] = useState(0);
  return (
    <Card component="section" aria-labelledby="wordpress-title">
      <CardContent sx={{ p: 3, '&:last-child': { pb: 3 } }}>
        <Typography id="wordpress-title" variant="h6" component="h2">
          WordPress
        </Typography>
        <Tabs
          value={tab}
          onChange={(_event, value: number) => setTab(value)}
          sx={{ mb: 2.5, borderBottom: 1, borderColor: 'divider' }}
        >
          {TABS.map((label, index) => (
            <Tab
              key={label}
              label={label}
              id={`wordpress-tab-${index}`}
              aria-controls={`wordpress-panel-${index}`}
            />
          ))}
        </Tabs>
        <Box role="tabpanel" id={`wordpress-panel-${tab}`} aria-labelledby={`wordpress-tab-${tab}`}>
          {tab === 0 && <FilesAndDatabaseTab instance={instance} />}
          {tab === 1 && <BackupsTab instance={instance} inactive={inactive} />}
          {tab === 2 && <AddonsTab />}
        </Box>
      </CardContent>
    </Card>
  );
}
