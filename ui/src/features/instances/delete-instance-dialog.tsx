import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import { useNavigate } from 'react-router';
import { errorMessage } from '../../api/api-error.ts';
import { type Instance, useDeleteInstanceMutation } from '../../api/instances.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { DELETE_DISABLED } from './instance-catalog.ts';

const deleteConfirmText = (name: string) =>
  `Are you sure you want to delete "${name}"? This action cannot be undone.`;

/**
 * 'Delete instance?'. It cannot be closed while the deletion runs; afterwards the
 * user lands on /instances.
 */
export function DeleteInstanceDialog({
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
  const remove = useDeleteInstanceMutation();
  const toast = useToast();
  const navigate = useNavigate();

  const confirm = () => {
    if (!instance) return;
    if (inactive) {
      toast.error(DELETE_DISABLED);
      onClose();
      return;
    }
    remove.mutate(
      { id: instance.id },
      {
        onSuccess: () => {
          onClose();
          toast.success('Instance deleted successfully');
          navigate('/instances');
        },
        onError: (error) => {
          onClose();
          toast.error(errorMessage(error, 'Failed to delete instance'));
        },
      },
    );
  };

  return (
    <Dialog
      open={open}
      onClose={() => !remove.isPending && onClose()}
      aria-labelledby="delete-instance-title"
      aria-describedby="delete-instance-text"
    >
      <DialogTitle id="delete-instance-title">Delete instance?</DialogTitle>
      <DialogContent>
        <DialogContentText id="delete-instance-text">
          {deleteConfirmText(instance?.name ?? '')}
        </DialogContentText>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2.5 }}>
        <Button color="inherit" onClick={onClose} disabled={remove.isPending}>
          Cancel
        </Button>
        <Button variant="contained" color="error" onClick={confirm} loading={remove.isPending}>
          Delete
        </Button>
      </DialogActions>
    </Dialog>
  );
}
