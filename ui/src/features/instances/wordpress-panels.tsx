import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import ExtensionIcon from '@mui/icons-material/Extension';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import RefreshIcon from '@mui/icons-material/Refresh';
import RestoreIcon from '@mui/icons-material/Restore';
import {
  Alert,
  Avatar,
  Box,
  Button,
  Card,
  CardContent,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Grid,
  LinearProgress,
  Link,
  Stack,
  Tab,
  Tabs,
  TextField,
  Typography,
} from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { errorMessage, fieldErrorsOf } from '../../api/api-error.ts';
import {
  type Backup,
  type Instance,
  useBackupsQuery,
  useCreateBackupMutation,
  useDeleteBackupMutation,
  useInstanceAccessQuery,
  useRestoreBackupMutation,
  useSiteStorageQuery,
} from '../../api/instances.queries.ts';
import { addonKeys } from '../../api/query-keys.ts';
import { useForm } from '../../components/form/use-form.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import { formatDateTime } from '../subscription/standing.ts';
import { CredentialField } from './credential-field.tsx';
import { isDeployed, WithReason } from './instance-actions.tsx';
import {
  BACKUP_CREATE_DISABLED,
  BACKUP_DELETE_DISABLED,
  BACKUP_RESTORE_DISABLED,
} from './instance-catalog.ts';
import {
  BACKUP_NAME_MAX,
  BACKUP_NOTE_MAX,
  type BackupValues,
  validateBackup,
} from './instance-validation.ts';
import { ADDONS_FAILED, fetchAddons, groupAddons, type WordPressAddon } from './wordpress-addons.ts';

/** The SFTP port when the server names none. */
const DEFAULT_SFTP_PORT = 22;

/** From this share of its storage on, the site is warned that writes will soon fail. */
const STORAGE_WARNING_SHARE = 0.9;
export const STORAGE_FULL_HINT =
  'Storage almost full: once it is full, uploads and SFTP writes fail. Delete files you no longer need over SFTP, or unused media in WordPress.';

/** The site's disk: used of its size, a warning when nearly full. */
function StorageMeter({ instance }: { instance: Instance }) {
  const storage = useSiteStorageQuery(instance.id, true);
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
  return (
    <Grid container spacing={3}>
      <Grid size={{ xs: 12, md: 6 }}>
        <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 700 }}>
          SFTP
        </Typography>
        <Box component="dl" sx={{ m: 0 }} aria-label="SFTP">
          <CredentialField label="SFTP Address" value={sftp?.ipAddress} />
          <CredentialField label="SFTP Port" value={sftp ? String(sftp.port || DEFAULT_SFTP_PORT) : null} />
          <CredentialField label="SFTP User" value={sftp?.user} />
          <CredentialField label="SFTP Password" value={sftp?.password} secret />
        </Box>
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
          <Typography color="text.secondary">No database information available.</Typography>
        )}
      </Grid>
      <Grid size={12}>
        <StorageMeter instance={instance} />
      </Grid>
    </Grid>
  );
}

const INITIAL_BACKUP: BackupValues = { name: '', note: '' };
const SIZE = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const formatSize = (bytes: number) =>
  bytes >= 1_048_576 ? `${SIZE.format(bytes / 1_048_576)} MB` : `${SIZE.format(bytes / 1024)} KB`;

type BackupAction = { kind: 'restore' | 'delete'; backup: Backup };

/**
 * Backups: the list, a create form (name, note), restore and delete, each after a
 * confirmation. An inactive subscription disables all three with its message.
 */
function BackupsTab({ instance, inactive }: { instance: Instance; inactive: boolean }) {
  const toast = useToast();
  const deployed = isDeployed(instance);
  const backups = useBackupsQuery(instance.id, deployed);
  const create = useCreateBackupMutation(instance.id);
  const restore = useRestoreBackupMutation(instance.id);
  const remove = useDeleteBackupMutation(instance.id);
  const form = useForm(INITIAL_BACKUP, validateBackup);
  const [action, setAction] = useState<BackupAction | null>(null);
  const notRunning = deployed ? null : 'Available once the instance is running';

  const submit = form.handleSubmit((values) => {
    if (inactive) {
      toast.error(BACKUP_CREATE_DISABLED);
      return;
    }
    create.mutate(
      { name: values.name.trim(), note: values.note.trim() },
      {
        onSuccess: ({ message }) => {
          toast.success(message || 'Backup creation started');
          form.reset();
        },
        onError: (error) => {
          form.showServerErrors(fieldErrorsOf(error));
          toast.error(errorMessage(error, 'Failed to create backup'));
        },
      },
    );
  });

  const confirm = () => {
    if (!action) return;
    const { kind, backup } = action;
    const mutation = kind === 'restore' ? restore : remove;
    mutation.mutate(backup.id, {
      onSuccess: (answer) =>
        toast.success(answer.message || (kind === 'restore' ? 'Restore initiated' : 'Backup deleted')),
      onError: (error) =>
        toast.error(
          errorMessage(error, kind === 'restore' ? 'Failed to restore backup' : 'Failed to delete backup'),
        ),
      onSettled: () => setAction(null),
    });
  };

  const note = form.field('note');
  return (
    <Stack spacing={3}>
      {inactive && <Alert severity="warning">{BACKUP_CREATE_DISABLED}</Alert>}
      <Stack component="form" noValidate onSubmit={submit} spacing={2} aria-label="Create backup">
        <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 700 }}>
          Create Backup
        </Typography>
        <TextField
          {...form.field('name')}
          label="Backup Name"
          required
          size="small"
          slotProps={{ htmlInput: { maxLength: BACKUP_NAME_MAX + 20 } }}
        />
        <TextField
          {...note}
          label="Note (optional)"
          size="small"
          multiline
          minRows={2}
          helperText={note.helperText ?? `${form.values.note.length}/${BACKUP_NOTE_MAX}`}
        />
        <Box>
          <WithReason reason={inactive ? BACKUP_CREATE_DISABLED : notRunning}>
            <Button
              type="submit"
              variant="contained"
              loading={create.isPending}
              disabled={inactive || !deployed}
            >
              Create Backup
            </Button>
          </WithReason>
        </Box>
      </Stack>

      <Box>
        <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 700, mb: 1 }}>
          Your Backups
        </Typography>
        {backups.isPending && deployed ? (
          <Stack role="status" sx={{ alignItems: 'center', py: 3 }}>
            <CircularProgress aria-label="Loading backups" />
          </Stack>
        ) : backups.isError ? (
          <Alert
            severity="error"
            action={
              <Button color="inherit" size="small" onClick={() => void backups.refetch()}>
                Retry
              </Button>
            }
          >
            {errorMessage(backups.error, 'Failed to load backups')}
          </Alert>
        ) : !backups.data?.length ? (
          <Typography color="text.secondary">No backups yet.</Typography>
        ) : (
          <Stack component="ul" aria-label="Backups" sx={{ listStyle: 'none', m: 0, p: 0 }}>
            {backups.data.map((backup) => (
              <Stack
                component="li"
                key={backup.id}
                aria-label={backup.name}
                direction={{ xs: 'column', sm: 'row' }}
                sx={{ gap: 1, py: 1.5, borderTop: 1, borderColor: 'divider', alignItems: { sm: 'center' } }}
              >
                <Box sx={{ flex: 1, minWidth: 0 }}>
                  <Typography sx={{ fontWeight: 600, wordBreak: 'break-word' }}>{backup.name}</Typography>
                  {backup.note && (
                    <Typography variant="body2" color="text.secondary" sx={{ wordBreak: 'break-word' }}>
                      {backup.note}
                    </Typography>
                  )}
                  <Typography variant="caption" color="text.secondary">
                    {formatDateTime(new Date(backup.createdAt))} · {formatSize(backup.size)}
                  </Typography>
                </Box>
                <Stack direction="row" sx={{ gap: 1 }}>
                  <WithReason reason={inactive ? BACKUP_RESTORE_DISABLED : null}>
                    <Button
                      size="small"
                      startIcon={<RestoreIcon />}
                      disabled={inactive}
                      onClick={() => setAction({ kind: 'restore', backup })}
                    >
                      Restore
                    </Button>
                  </WithReason>
                  <WithReason reason={inactive ? BACKUP_DELETE_DISABLED : null}>
                    <Button
                      size="small"
                      color="error"
                      startIcon={<DeleteOutlineIcon />}
                      disabled={inactive}
                      onClick={() => setAction({ kind: 'delete', backup })}
                    >
                      Delete
                    </Button>
                  </WithReason>
                </Stack>
              </Stack>
            ))}
          </Stack>
        )}
      </Box>

      <Dialog open={action !== null} onClose={() => setAction(null)} aria-labelledby="backup-action-title">
        <DialogTitle id="backup-action-title">
          {action?.kind === 'restore' ? 'Restore backup?' : 'Delete backup?'}
        </DialogTitle>
        <DialogContent>
          <DialogContentText>
            {action?.kind === 'restore'
              ? `The site's database and files are replaced by those of “${action.backup.name}”.`
              : `“${action?.backup.name ?? ''}” is deleted for good.`}
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button color="inherit" onClick={() => setAction(null)}>
            Cancel
          </Button>
          <Button
            variant="contained"
            color={action?.kind === 'delete' ? 'error' : 'primary'}
            loading={restore.isPending || remove.isPending}
            onClick={confirm}
          >
            {action?.kind === 'restore' ? 'Restore' : 'Delete'}
          </Button>
        </DialogActions>
      </Dialog>
    </Stack>
  );
}

/** An add-on's logo; a broken image falls back to an icon. */
function AddonLogo({ addon }: { addon: WordPressAddon }) {
  const [broken, setBroken] = useState(false);
  return (
    <Avatar
      variant="rounded"
      src={broken || !addon.logo ? undefined : addon.logo}
      alt=""
      slotProps={{ img: { onError: () => setBroken(true), loading: 'lazy' } }}
      sx={{ width: 40, height: 40, bgcolor: 'action.selected', color: 'text.secondary' }}
    >
      <ExtensionIcon data-testid="addon-logo-fallback" />
    </Avatar>
  );
}

/**
 * Add-ons: the static list of the web app, grouped by category, loaded without a cache
 * within 7 s; a failure offers Retry and Reload.
 */
function AddonsTab() {
  const platform = usePlatform();
  const origin = platform.kind === 'web' ? window.location.origin : platform.apiBaseUrl;
  const addons = useQuery({
    queryKey: addonKeys.all,
    queryFn: () => fetchAddons(`${origin}/wp-addons.json`),
    retry: false,
    staleTime: 0,
    gcTime: 0,
  });

  if (addons.isPending)
    return (
      <Stack role="status" sx={{ alignItems: 'center', py: 3 }}>
        <CircularProgress aria-label="Loading add-ons" />
      </Stack>
    );
  if (addons.isError)
    return (
      <Alert
        severity="warning"
        action={
          <Stack direction="row" sx={{ gap: 1 }}>
            <Button
              color="inherit"
              size="small"
              startIcon={<RefreshIcon />}
              onClick={() => void addons.refetch()}
            >
              Retry
            </Button>
            <Button color="inherit" size="small" onClick={() => window.location.reload()}>
              Reload
            </Button>
          </Stack>
        }
      >
        {ADDONS_FAILED}
      </Alert>
    );
  return (
    <Stack spacing={3}>
      {groupAddons(addons.data).map(([category, entries]) => (
        <Box key={category} component="section" aria-label={category}>
          <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 700, mb: 1 }}>
            {category}
          </Typography>
          <Grid container spacing={1.5}>
            {entries.map((addon) => (
              <Grid key={addon.slug} size={{ xs: 12, sm: 6 }}>
                <Stack
                  direction="row"
                  sx={{
                    gap: 1.5,
                    p: 1.5,
                    border: 1,
                    borderColor: 'divider',
                    borderRadius: 1,
                    height: '100%',
                  }}
                >
                  <AddonLogo addon={addon} />
                  <Box sx={{ minWidth: 0 }}>
                    <Link
                      href={addon.url}
                      target="_blank"
                      rel="noopener noreferrer"
                      onClick={(event) => {
                        event.preventDefault();
                        platform.openExternal(addon.url);
                      }}
                      sx={{ fontWeight: 600, display: 'inline-flex', alignItems: 'center', gap: 0.5 }}
                    >
                      {addon.name}
                      <OpenInNewIcon sx={{ fontSize: 14 }} aria-hidden />
                    </Link>
                    <Typography variant="body2" color="text.secondary">
                      {addon.description}
                    </Typography>
                  </Box>
                </Stack>
              </Grid>
            ))}
          </Grid>
        </Box>
      ))}
    </Stack>
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
