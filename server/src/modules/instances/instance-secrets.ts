import { randomBytes } from 'node:crypto';
import type { Cipher } from '../../lib/crypto.ts';

/**
 * Instance credentials as stored: JSON encrypted with the server's key (lib/crypto.ts), bound to the
 * row they belong to, so a value copied into another row does not open there.
 */
export interface StoredSecret {
  password: string;
  /** Filled in by the deploy job from the driver's answer. */
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  /**
   * The database requires TLS (a server of its own): the CA its certificate is verified with (null: a
   * public CA, e.g. ACME). Absent or null: no TLS (a tenant of a shared server).
   */
  tls?: { caPem: string | null } | null;
  /** MySQL instances with a server of their own: the address of their phpMyAdmin (null: none). */
  phpmyadmin?: string | null;
  /** WordPress: the SFTP password (generated at deploy) and, once deployed, the login's address. */
  sftpPassword?: string;
  sftpHost?: string;
  sftpPort?: number;
  sftpUser?: string;
  /**
   * WordPress: the admin password the customer chose. Kept (encrypted) so a deploy retried or
   * reconciled before the install finished installs with the very same password.
   */
  adminPassword?: string;
  /**
   * n8n: N8N_ENCRYPTION_KEY of the instance (its stored credentials are encrypted with it), generated
   * once at deploy; every deploy and restore uses the very same key.
   */
  n8nKey?: string;
}

/** A new n8n encryption key (what n8n itself would generate: 24 random bytes). */
export const generateN8nKey = (): string => randomBytes(24).toString('base64url');

const secretContext = (instanceId: string) => `instance_credentials.secret:${instanceId}`;
const keptKeyContext = (instanceId: string) => `instance_backups.deleted_instance.key:${instanceId}`;
const pendingContext = (instanceId: string) => `instance_credentials.pending_password:${instanceId}`;

export function sealSecret(cipher: Cipher, instanceId: string, secret: StoredSecret): string {
  return cipher.encrypt(JSON.stringify(secret), secretContext(instanceId));
}

export function openSecret(cipher: Cipher, instanceId: string, stored: string): StoredSecret {
  return JSON.parse(cipher.decrypt(stored, secretContext(instanceId))) as StoredSecret;
}

export function sealPendingPassword(cipher: Cipher, instanceId: string, password: string): string {
  return cipher.encrypt(password, pendingContext(instanceId));
}

export function openPendingPassword(cipher: Cipher, instanceId: string, stored: string): string {
  return cipher.decrypt(stored, pendingContext(instanceId));
}

/**
 * n8n: the encryption key of a deleted instance, kept with its backups (a restore into a new instance
 * runs with it, or the restored credentials would not decrypt); bound to the deleted instance's id.
 */
export function sealKeptKey(cipher: Cipher, instanceId: string, key: string): string {
  return cipher.encrypt(key, keptKeyContext(instanceId));
}

export function openKeptKey(cipher: Cipher, instanceId: string, sealed: string): string {
  return cipher.decrypt(sealed, keptKeyContext(instanceId));
}
