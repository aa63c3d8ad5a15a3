import { Box, Button, Stack, TextField, Typography } from '@mui/material';
import { errorMessage, fieldErrorsOf } from '../../api/api-error.ts';
import { useCreateBackupMutation } from '../../api/instance-backups.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { BACKUP_CREATE_DISABLED } from './instance-catalog.ts';
import {
  BACKUP_NAME_MAX,
  BACKUP_NOTE_MAX,
  type BackupValues,
  validateBackup,
} from './instance-validation.ts';
import { WithReason } from './with-reason.tsx';

const INITIAL_BACKUP: BackupValues = { name: '', note: '' };

/** Create Backup of the Backups tab: a name and a note; off while inactive or not running. */
export function CreateBackupForm({
  instanceId,
  inactive,
  deployed,
}: {
  instanceId: string;
  inactive: boolean;
  deployed: boolean;
}) {
  const toast = useToast();
  const create = useCreateBackupMutation(instanceId);
  const form = useForm(INITIAL_BACKUP, validateBackup);
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

  const note = form.field('note');
  return (
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
  );
}
