import { Box, Typography } from '@mui/material';

/** One labelled figure inside a `<dl>`: a small caption and the value under it. */
export function Fact({ label, value }: { label: string; value: string }) {
  return (
    <Box>
      <Typography variant="caption" color="text.secondary" component="dt">
        {label}
      </Typography>
      <Typography variant="h6" component="dd" sx={{ m: 0 }}>
        {value}
      </Typography>
    </Box>
  );
}
