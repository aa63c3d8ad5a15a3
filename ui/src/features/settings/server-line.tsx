import { Link, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { Link as RouterLink } from 'react-router';
import { SETTINGS_PATH } from '../../navigation/navigation.ts';
import { useScreenExists } from '../../navigation/screen-exists.ts';
import { usePlatform } from '../../platform/platform-context.ts';

/**
 * "Server: https://berth.example.com · Change" under the sign-in form of the desktop app, so a wrong
 * server can be corrected before signing in. Nothing on the web.
 */
export function ServerLine() {
  const { settings } = usePlatform();
  const hasSettings = useScreenExists()(SETTINGS_PATH);
  const serverUrl = useQuery({
    queryKey: ['host', 'server-url'],
    queryFn: () => (settings ? settings.getServerUrl() : Promise.resolve('')),
    enabled: settings !== null && hasSettings,
  });
  if (!hasSettings || !serverUrl.data) return null;
  return (
    <Typography
      variant="body2"
      color="text.secondary"
      sx={{ mt: 2.5, textAlign: 'center', wordBreak: 'break-all' }}
    >
      Server: {serverUrl.data} ·{' '}
      <Link component={RouterLink} to={SETTINGS_PATH}>
        Change
      </Link>
    </Typography>
  );
}
