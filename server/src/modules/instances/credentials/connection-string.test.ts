import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { INSTANCE_TYPE_CATALOGUE } from '@berth/openapi/rules';
import { describe, expect, it } from 'vitest';
import { connectionString } from './connection-string.ts';

const { mysql, postgresql, mongodb } = INSTANCE_TYPE_CATALOGUE;
const login = { user: 'tenant_1', password: 'p@ss/word', host: 'db.example.com', port: 4406, name: 'shop' };
const ownCa = { caPem: '-----BEGIN CERTIFICATE-----' };
const publicCa = { caPem: null };

describe('the connection string customers copy', () => {
  it('verifies the server with the CA file customers download, in each client’s own words', () => {
    expect(connectionString(mysql.connection, login, ownCa)).toBe(
      'mysql://tenant_1:p%40ss%2Fword@db.example.com:4406/shop?ssl-mode=VERIFY_IDENTITY&ssl-ca=berth-ca.pem',
    );
    expect(connectionString(postgresql.connection, login, ownCa)).toBe(
      'postgresql://tenant_1:p%40ss%2Fword@db.example.com:4406/shop?sslmode=verify-full&sslrootcert=berth-ca.pem',
    );
    expect(connectionString(mongodb.connection, login, ownCa)).toBe(
      'mongodb://tenant_1:p%40ss%2Fword@db.example.com:4406/shop?tls=true&tlsCAFile=berth-ca.pem',
    );
  });

  it('trusts the public CAs where the server has a public certificate, and says nothing of TLS without it', () => {
    expect(connectionString(postgresql.connection, login, publicCa)).toMatch(
      /\?sslmode=verify-full&sslrootcert=system$/,
    );
    expect(connectionString(mysql.connection, login, publicCa)).toMatch(/\?ssl-mode=VERIFY_IDENTITY$/);
    expect(connectionString(mysql.connection, login, null)).toBe(
      'mysql://tenant_1:p%40ss%2Fword@db.example.com:4406/shop',
    );
    expect(connectionString(mysql.connection, { ...login, host: '::1' }, null)).toContain('@[::1]:4406/');
  });

  it('is a URI libpq takes as it is: psql reaches for the server rather than refusing the string', async () => {
    const uri = connectionString(postgresql.connection, { ...login, host: '127.0.0.1', port: 1 }, publicCa);
    const failure = await promisify(execFile)('/usr/bin/psql', [uri, '--command=SELECT 1'], {
      env: { PATH: '/usr/bin:/bin', PGCONNECT_TIMEOUT: '2' },
    }).catch((error: { stderr: string }) => error);
    expect('stderr' in failure ? failure.stderr : '').toMatch(
      /127\.0\.0\.1.*port 1 failed: Connection refused/,
    );
  });
});
