import BrokenImageIcon from '@mui/icons-material/BrokenImage';
import { Box, CircularProgress, Link, Stack, Tooltip } from '@mui/material';
import { useEffect, useState } from 'react';
import { type HelpAttachment, useHelpImageQuery } from '../../api/help.queries.ts';

/** An object URL for a blob, revoked when the blob changes or the component goes. */
function useObjectUrl(blob: Blob | undefined): string | undefined {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    if (!blob) return;
    const next = URL.createObjectURL(blob);
    setUrl(next);
    return () => {
      URL.revokeObjectURL(next);
      setUrl(undefined);
    };
  }, [blob]);
  return url;
}

/**
 * One attached image as a thumbnail that opens full size in a new tab. The file is private (the
 * ticket's owner and admins), so it is fetched with the session's token rather than by <img src>.
 */
export function HelpImage({ attachment, size = 96 }: { attachment: HelpAttachment; size?: number }) {
  const image = useHelpImageQuery(attachment.url);
  const src = useObjectUrl(image.data);
  const frame = {
    width: size,
    height: size,
    borderRadius: 1,
    border: 1,
    borderColor: 'divider',
    overflow: 'hidden',
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'center',
    bgcolor: 'action.hover',
  } as const;
  if (image.isError)
    return (
      <Tooltip title={`${attachment.name} is not available`}>
        <Box sx={frame} role="img" aria-label={`${attachment.name} (not available)`}>
          <BrokenImageIcon color="disabled" />
        </Box>
      </Tooltip>
    );
  if (!src)
    return (
      <Box sx={frame}>
        <CircularProgress size={20} aria-label={`Loading ${attachment.name}`} />
      </Box>
    );
  return (
    <Link
      href={src}
      target="_blank"
      rel="noopener noreferrer"
      aria-label={`Open ${attachment.name} in a new tab`}
      sx={frame}
    >
      <Box
        component="img"
        src={src}
        alt={attachment.name}
        sx={{ width: '100%', height: '100%', objectFit: 'cover' }}
      />
    </Link>
  );
}

export function HelpImages({
  attachments,
  label,
}: {
  attachments: readonly HelpAttachment[];
  label: string;
}) {
  if (attachments.length === 0) return null;
  return (
    <Stack
      direction="row"
      component="ul"
      aria-label={label}
      sx={{ gap: 1, flexWrap: 'wrap', listStyle: 'none', p: 0, m: 0 }}
    >
      {attachments.map((attachment) => (
        <li key={attachment.url}>
          <HelpImage attachment={attachment} />
        </li>
      ))}
    </Stack>
  );
}
