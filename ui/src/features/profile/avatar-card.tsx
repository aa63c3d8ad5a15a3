import type { User } from '@berth/openapi';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import UploadIcon from '@mui/icons-material/Upload';
import {
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Stack,
  Typography,
} from '@mui/material';
import { type ChangeEvent, useRef, useState } from 'react';
import { errorMessage } from '../../api/api-error.ts';
import { useRemoveAvatarMutation, useUploadAvatarMutation } from '../../api/profile.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { UserAvatar } from '../../components/user-avatar.tsx';
import { ProfileSection } from './profile-section.tsx';
import { AVATAR_HINT, AVATAR_TYPES, avatarFileError } from './profile-validation.ts';

/** Profile Picture: upload or remove, with a confirmation for removal. */
export function AvatarCard({ user }: { user: User }) {
  const upload = useUploadAvatarMutation();
  const remove = useRemoveAvatarMutation();
  const toast = useToast();
  const [confirming, setConfirming] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);

  const choose = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    const problem = avatarFileError(file);
    if (problem) {
      toast.error(problem);
      return;
    }
    upload.mutate(file, {
      onSuccess: () => toast.success('Profile picture updated'),
      onError: (error) => toast.error(errorMessage(error, 'Failed to upload avatar')),
    });
  };

  const confirmRemove = () =>
    remove.mutate(undefined, {
      onSuccess: () => {
        setConfirming(false);
        toast.success('Profile picture removed');
      },
      onError: (error) => {
        setConfirming(false);
        toast.error(errorMessage(error, 'Failed to remove avatar'));
      },
    });

  return (
    <ProfileSection id="profile-picture" title="Profile Picture">
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={3} sx={{ alignItems: { sm: 'center' } }}>
        <UserAvatar user={user} size={88} />
        <Box>
          <Stack direction="row" spacing={1.5} sx={{ mb: 1, flexWrap: 'wrap', rowGap: 1 }}>
            <Button
              variant="contained"
              startIcon={<UploadIcon />}
              loading={upload.isPending}
              onClick={() => fileInput.current?.click()}
              aria-describedby="avatar-hint"
            >
              Upload Picture
            </Button>
            <input
              ref={fileInput}
              type="file"
              hidden
              tabIndex={-1}
              aria-label="Profile picture file"
              accept={AVATAR_TYPES.join(',')}
              onChange={choose}
              data-testid="avatar-input"
            />
            {user.avatarUrl && (
              <Button
                variant="outlined"
                color="error"
                startIcon={<DeleteOutlineIcon />}
                onClick={() => setConfirming(true)}
              >
                Remove
              </Button>
            )}
          </Stack>
          <Typography id="avatar-hint" variant="body2" color="text.secondary">
            {AVATAR_HINT}
          </Typography>
        </Box>
      </Stack>
      <Dialog
        open={confirming}
        onClose={() => !remove.isPending && setConfirming(false)}
        aria-labelledby="remove-avatar-title"
        aria-describedby="remove-avatar-text"
      >
        <DialogTitle id="remove-avatar-title">Remove your profile picture?</DialogTitle>
        <DialogContent>
          <DialogContentText id="remove-avatar-text">
            Your initials will show instead. You can upload a new picture at any time.
          </DialogContentText>
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2.5 }}>
          <Button color="inherit" onClick={() => setConfirming(false)} disabled={remove.isPending}>
            Cancel
          </Button>
          <Button variant="contained" color="error" onClick={confirmRemove} loading={remove.isPending}>
            Remove
          </Button>
        </DialogActions>
      </Dialog>
    </ProfileSection>
  );
}
