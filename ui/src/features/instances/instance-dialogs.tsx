import { useCallback, useState } from 'react';
import type { Instance } from '../../api/instances.queries.ts';
import { ChangePasswordDialog } from './change-password-dialog.tsx';
import { CredentialsDialog } from './credentials-dialog.tsx';
import { DeleteInstanceDialog } from './delete-instance-dialog.tsx';

export type InstanceDialogKind = 'credentials' | 'password' | 'delete';

interface DialogState {
  kind: InstanceDialogKind;
  instance: Instance;
  open: boolean;
}

/** Which instance dialog is open, for which instance (kept while the dialog closes, for its exit). */
export function useInstanceDialogs() {
  const [state, setState] = useState<DialogState | null>(null);
  const open = useCallback(
    (kind: InstanceDialogKind, instance: Instance) => setState({ kind, instance, open: true }),
    [],
  );
  const close = useCallback(() => setState((current) => current && { ...current, open: false }), []);
  return { state, open, close };
}

/** The credentials, change-password and delete dialogs of the instance screens. */
export function InstanceDialogs({
  dialogs,
  inactive,
}: {
  dialogs: ReturnType<typeof useInstanceDialogs>;
  inactive: boolean;
}) {
  const { state, close } = dialogs;
  const isOpen = (kind: InstanceDialogKind) => state?.kind === kind && state.open;
  const instanceFor = (kind: InstanceDialogKind) => (state?.kind === kind ? state.instance : undefined);
  return (
    <>
      <CredentialsDialog instance={instanceFor('credentials')} open={isOpen('credentials')} onClose={close} />
      <ChangePasswordDialog
        instance={instanceFor('password')}
        open={isOpen('password')}
        inactive={inactive}
        onClose={close}
      />
      <DeleteInstanceDialog
        instance={instanceFor('delete')}
        open={isOpen('delete')}
        inactive={inactive}
        onClose={close}
      />
    </>
  );
}
