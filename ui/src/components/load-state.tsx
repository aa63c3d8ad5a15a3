import type { SxProps, Theme } from '@mui/material';
import { Alert, Button, CircularProgress, Stack, Typography } from '@mui/material';

/** What a page shows while a query runs and when it failed (with Retry), e.g. the plan prices. */
export function LoadState({
  query,
  loading,
  failed,
  sx,
}: {
  query: { isPending: boolean; isError: boolean; refetch(): unknown };
  loading: string;
  failed: string;
  sx?: SxProps<Theme>;
}) {
  if (query.isPending) {
    return (
      <Stack role="status" spacing={2} sx={{ alignItems: 'center', py: 5 }}>
        <CircularProgress aria-hidden />
        <Typography color="text.secondary">{loading}</Typography>
      </Stack>
    );
  }
  if (query.isError) {
    return (
      <Alert
        severity="error"
        sx={sx}
        action={
          <Button color="inherit" size="small" onClick={() => void query.refetch()}>
            Retry
          </Button>
        }
      >
        {failed}
      </Alert>
    );
  }
  return null;
}
