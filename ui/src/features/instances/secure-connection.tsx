import DownloadIcon from '@mui/icons-material/Download';
import LockIcon from '@mui/icons-material/Lock';
import { Box, Button, Stack, Typography } from '@mui/material';
import type { DatabaseCredentials } from '../../api/instances.queries.ts';
import { CredentialField } from './credential-field.tsx';
import { entryNamed } from './instance-catalog.ts';

/** Saves the CA certificate as `filename` through a temporary link. */
function downloadPem(filename: string, pem: string): void {
  const url = URL.createObjectURL(new Blob([pem], { type: 'application/x-pem-file' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * The command that logs in with the engine's own client and verifies the server's certificate: the
 * client follows the connection scheme of the type (by name) in the catalogue; none for the others.
 */
function verifyingCommand(type: string, c: DatabaseCredentials): string | null {
  const ca = c.tls.caCertificate && c.tls.caFileName ? c.tls.caFileName : null;
  const scheme = entryNamed(type)?.connection?.scheme;
  if (scheme === 'mysql') {
    return [
      'mysql',
      `--host=${c.host}`,
      `--port=${c.port}`,
      `--user=${c.user}`,
      '--password',
      '--ssl',
      ...(ca ? [`--ssl-ca=${ca}`] : []),
      '--ssl-verify-server-cert',
      c.name,
    ].join(' ');
  }
  if (scheme === 'postgresql') {
    const root = ca ? ` sslrootcert=${ca}` : '';
    return `psql "host=${c.host} port=${c.port} user=${c.user} dbname=${c.name} sslmode=verify-full${root}"`;
  }
  return null;
}

/**
 * A database that accepts encrypted connections only: the CA certificate that verifies its server (a
 * download) and the command that connects with it, as the connection string expects the file.
 */
export function SecureConnection({ type, credentials }: { type: string; credentials: DatabaseCredentials }) {
  const { tls } = credentials;
  if (!tls.required) return null;
  const command = verifyingCommand(type, credentials);
  return (
    <Box component="section" aria-labelledby="secure-connection-title" sx={{ mt: 1.5 }}>
      <Stack direction="row" sx={{ alignItems: 'center', gap: 1, mb: 0.5 }}>
        <LockIcon fontSize="small" color="success" aria-hidden />
        <Typography id="secure-connection-title" variant="subtitle2" component="h3">
          Secure connection
        </Typography>
      </Stack>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        This database accepts encrypted connections only.{' '}
        {tls.caCertificate
          ? 'Download the certificate below and keep it next to your client: it proves you reach your own server.'
          : 'Its certificate comes from a public authority your client already trusts.'}
      </Typography>
      {tls.caCertificate && tls.caFileName && (
        <Button
          variant="outlined"
          size="small"
          startIcon={<DownloadIcon />}
          onClick={() => downloadPem(tls.caFileName ?? 'ca.pem', tls.caCertificate ?? '')}
          sx={{ mb: 1 }}
        >
          Download CA certificate ({tls.caFileName})
        </Button>
      )}
      {command && (
        <Box component="dl" sx={{ m: 0 }}>
          <CredentialField label="Connect from a terminal" value={command} />
        </Box>
      )}
    </Box>
  );
}
