import mysql from 'mysql2/promise';
import pg from 'pg';
import type { DatabaseCredentials } from './engine.ts';
import type { DatabaseType } from './instance-types.ts';

/**
 * Logs in as the tenant and runs `SELECT 1`: the proof that a deployed database is ready. Throws the
 * engine's error when the login is refused.
 */
export async function checkTenantLogin(type: DatabaseType, credentials: DatabaseCredentials): Promise<void> {
  const { host, port, user, password, database } = credentials;
  // A server that requires TLS is verified as a customer's client would: its CA, its host name.
  const ssl = credentials.tls
    ? { ca: credentials.tls.caPem ?? undefined, rejectUnauthorized: true }
    : undefined;
  if (type === 'mysql') {
    const connection = await mysql.createConnection({
      host,
      port,
      user,
      password,
      database,
      connectTimeout: 5000,
      ...(ssl && { ssl }),
    });
    try {
      await connection.query('SELECT 1');
    } finally {
      await connection.end();
    }
    return;
  }
  if (type === 'postgresql') {
    const client = new pg.Client({
      host,
      port,
      user,
      password,
      database,
      connectionTimeoutMillis: 5000,
      ...(ssl && { ssl }),
    });
    client.on('error', () => {}); // a server-side termination after the check is not our concern
    await client.connect();
    try {
      await client.query('SELECT 1');
    } finally {
      await client.end();
    }
    return;
  }
  throw new Error(`No login check for ${type} yet`);
}
