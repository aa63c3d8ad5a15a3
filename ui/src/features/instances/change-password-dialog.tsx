import AutorenewIcon from '@mui/icons-material/Autorenew';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import KeyIcon from '@mui/icons-material/Key';
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { errorMessage, fieldErrorsOf } from '../../api/api-error.ts';
import { type Instance, useChangeInstancePasswordMutation } from '../../api/instances.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { PasswordField } from '../../components/password-field.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { useCopyToClipboard } from '../../components/use-copy-to-clipboard.ts';
import { DATABASE_PASSWORD_LENGTH, generatePassword } from './generate-password.ts';
import { canChangePassword, PASSWORD_CHANGE_DISABLED } from './instance-catalog.ts';
import { EMPTY_DATABASE_PASSWORD, validateDatabasePassword } from './instance-validation.ts';

const PASSWORD_TYPES_ONLY = 'Only MongoDB or MySQL password changes are supported';

type ChangeInstancePassword = ReturnType<typeof useChangeInstancePasswordMutation>;

/** A strong password to look at, copy, regenerate, or put into both fields. */
function Generator({ onUse }: { onUse(password: string): void }) {
  const toast = useToast();
  const copy = useCopyToClipboard();
  const [generated, setGenerated] = useState<string | null>(null);

  const generate = () => {
    setGenerated(generatePassword(DATABASE_PASSWORD_LENGTH));
    toast.success('Generated a strong password');
  };

  if (generated === null) {
    return (
      <Box>
        <Button startIcon={<KeyIcon />} onClick={generate}>
          Generate Strong Password
        </Button>
      </Box>
    );
  }
  return (
    <Box
      role="group"
      aria-label="Generated password"
      sx={{ p: 1.5, borderRadius: 1, border: 1, borderColor: 'divider', bgcolor: 'action.hover' }}
    >
      <Typography variant="caption" color="text.secondary" component="p">
        Generated password
      </Typography>
      <Typography
        data-testid="generated-password"
        sx={{
          fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
          wordBreak: 'break-all',
        }}
      >
        {generated}
      </Typography>
      <Stack direction="row" sx={{ mt: 1, gap: 1, flexWrap: 'wrap' }}>
        <Button size="small" startIcon={<ContentCopyIcon />} onClick={() => void copy(generated, 'Password')}>
          Copy
        </Button>
        <Button size="small" startIcon={<AutorenewIcon />} onClick={generate}>
          Regenerate
        </Button>
        <Button
          size="small"
          variant="contained"
          onClick={() => {
            onUse(generated);
            setGenerated(null);
          }}
        >
          Use Password
        </Button>
      </Stack>
    </Box>
  );
}

function ChangePasswordForm({
  instance,
  inactive,
  change,
  onDone,
}: {
  instance: Instance;
  inactive: boolean;
  change: ChangeInstancePassword;
  onDone(): void;
}) {
  const toast = useToast();
  const form = useForm(EMPTY_DATABASE_PASSWORD, validateDatabasePassword);
  const supported = canChangePassword(instance.type);

  const submit = form.handleSubmit((values) => {
    if (inactive) {
      toast.error(PASSWORD_CHANGE_DISABLED);
      return;
    }
    if (!supported) {
      toast.error(PASSWORD_TYPES_ONLY);
      return;
    }
    change.mutate(
      // The type comes from the instance: only the database types above get here.
      { id: instance.id, type: instance.type, password: values.password },
      {
        onSuccess: ({ message }) => {
          toast.success(message || `${instance.type} password updated`);
          onDone();
        },
        onError: (error) => {
          form.showServerErrors(fieldErrorsOf(error));
          toast.error(errorMessage(error, 'Failed to change database password'));
        },
      },
    );
  });

  const use = (password: string) => {
    form.setValue('password', password);
    form.setValue('confirmPassword', password);
    toast.success('Password inserted');
  };

  return (
    <Box component="form" noValidate onSubmit={submit}>
      <DialogContent sx={{ pt: 0 }}>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          A new password for the {instance.type} user of “{instance.name}”. Live sessions are closed and the
          old password stops working.
        </Typography>
        {inactive && (
          <Alert severity="error" sx={{ mb: 2 }}>
            {PASSWORD_CHANGE_DISABLED}
          </Alert>
        )}
        {!supported && (
          <Alert severity="error" sx={{ mb: 2 }}>
            {PASSWORD_TYPES_ONLY}
          </Alert>
        )}
        <Stack spacing={2.5}>
          <PasswordField {...form.field('password')} label="New Password" autoComplete="new-password" />
          <PasswordField
            {...form.field('confirmPassword')}
            label="Confirm Password"
            autoComplete="new-password"
          />
          <Generator onUse={use} />
        </Stack>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2.5 }}>
        <Button color="inherit" onClick={onDone} disabled={change.isPending}>
          Cancel
        </Button>
        <Button
          type="submit"
          variant="contained"
          loading={change.isPending}
          disabled={inactive || !supported}
        >
          Change Password
        </Button>
      </DialogActions>
    </Box>
  );
}

/** Change Database Password: new password twice, with an 18-character generator. */
export function ChangePasswordDialog({
  instance,
  open,
  inactive,
  onClose,
}: {
  instance: Instance | undefined;
  open: boolean;
  inactive: boolean;
  onClose(): void;
}) {
  const change = useChangeInstancePasswordMutation();
  return (
    <Dialog
      open={open}
      onClose={() => !change.isPending && onClose()}
      fullWidth
      maxWidth="sm"
      aria-labelledby="change-password-title"
    >
      <DialogTitle id="change-password-title">Change Database Password</DialogTitle>
      {instance && (
        <ChangePasswordForm
          key={instance.id}
          instance={instance}
          inactive={inactive}
          change={change}
          onDone={onClose}
        />
      )}
    </Dialog>
  );
}
