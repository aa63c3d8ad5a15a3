import AddPhotoAlternateIcon from '@mui/icons-material/AddPhotoAlternate';
import CloseIcon from '@mui/icons-material/Close';
import { Box, Button, IconButton, Stack, Typography } from '@mui/material';
import { type ChangeEvent, useId, useState } from 'react';
import { errorMessage } from '../../api/api-error.ts';
import {
  type HelpAttachment,
  useRemoveHelpUploadMutation,
  useUploadHelpImageMutation,
} from '../../api/help.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { HelpImage } from './help-image.tsx';

const MAX_IMAGES = 5;

/**
 * Images for a ticket or an answer: each chosen file is uploaded at once (one per call) and shown as a
 * thumbnail; removing one deletes the upload on the server. At most 5; the picker is disabled at 5 and
 * extra files chosen at once are dropped. Only image/* files are offered; the server checks the bytes.
 */
export function AttachmentPicker({
  value,
  onChange,
  label = 'Add Images',
  disabled = false,
}: {
  value: readonly HelpAttachment[];
  onChange: (next: HelpAttachment[]) => void;
  label?: string;
  disabled?: boolean;
}) {
  const id = useId();
  const upload = useUploadHelpImageMutation();
  const removeUpload = useRemoveHelpUploadMutation();
  const [uploading, setUploading] = useState(0);
  const toast = useToast();
  const full = value.length + uploading >= MAX_IMAGES;

  const choose = async (event: ChangeEvent<HTMLInputElement>) => {
    const room = MAX_IMAGES - value.length - uploading;
    const files = Array.from(event.target.files ?? [])
      .filter((file) => file.type.startsWith('image/'))
      .slice(0, Math.max(0, room));
    event.target.value = '';
    let next = [...value];
    for (const file of files) {
      setUploading((n) => n + 1);
      try {
        const attachment = await upload.mutateAsync(file);
        next = [...next, attachment];
        onChange(next);
      } catch (err) {
        // The server's reason (too large, not an image) when it gave one.
        toast.error(errorMessage(err, 'Upload failed'));
      } finally {
        setUploading((n) => n - 1);
      }
    }
  };

  const remove = (attachment: HelpAttachment) => {
    onChange(value.filter((a) => a.url !== attachment.url));
    removeUpload.mutate(attachment);
  };

  return (
    <Stack spacing={1}>
      <Stack direction="row" sx={{ gap: 2, alignItems: 'center', flexWrap: 'wrap' }}>
        <Button
          component="label"
          htmlFor={id}
          variant="outlined"
          startIcon={<AddPhotoAlternateIcon />}
          disabled={disabled || full}
          loading={uploading > 0}
        >
          {label}
          <input
            id={id}
            type="file"
            accept="image/*"
            multiple
            hidden
            disabled={disabled || full}
            onChange={(event) => void choose(event)}
          />
        </Button>
        <Typography variant="body2" color="text.secondary">
          Max 5 images ({value.length}/{MAX_IMAGES})
        </Typography>
      </Stack>
      {value.length > 0 && (
        <Stack
          direction="row"
          component="ul"
          aria-label="Attached images"
          sx={{ gap: 1.5, flexWrap: 'wrap', listStyle: 'none', p: 0, m: 0 }}
        >
          {value.map((attachment) => (
            <Box component="li" key={attachment.url} sx={{ position: 'relative' }}>
              <HelpImage attachment={attachment} />
              <IconButton
                size="small"
                aria-label={`Remove ${attachment.name}`}
                onClick={() => remove(attachment)}
                disabled={disabled}
                sx={{
                  position: 'absolute',
                  top: -10,
                  right: -10,
                  bgcolor: 'background.paper',
                  border: 1,
                  borderColor: 'divider',
                  '&:hover': { bgcolor: 'background.paper' },
                }}
              >
                <CloseIcon fontSize="small" />
              </IconButton>
            </Box>
          ))}
        </Stack>
      )}
    </Stack>
  );
}
