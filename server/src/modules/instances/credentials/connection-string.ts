import type { DatabaseConnection as Connection } from '@berth/openapi/rules';

/** What the instance page calls the CA certificate customers download (the connection string names it). */
export const CA_FILE_NAME = 'berth-ca.pem';

/**
 * The client's TLS options in a connection string: verify the server's certificate and its host name,
 * with the downloaded CA (Berth's own) or the public ones the client trusts.
 */
function tlsQuery(connection: Connection, tls: { caPem: string | null } | null | undefined): string {
  if (!tls) return '';
  const { verify, caFile, publicCas } = connection.tls;
  const ca = tls.caPem ? CA_FILE_NAME : publicCas;
  return `?${verify}${ca ? `&${caFile}=${ca}` : ''}`;
}

export function connectionString(
  connection: Connection,
  c: { user: string; password: string; host: string; port: number; name: string },
  tls: { caPem: string | null } | null | undefined,
) {
  const e = encodeURIComponent;
  return `${connection.scheme}://${e(c.user)}:${e(c.password)}@${c.host.includes(':') ? `[${c.host}]` : c.host}:${c.port}/${e(c.name)}${tlsQuery(connection, tls)}`;
}
