import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Reads a secret kept in the data directory, generating it (mode 600) on first use. */
export async function persistentSecret(dataDir: string, name: string, bytes = 48): Promise<string> {
  const file = path.join(dataDir, 'secrets', name);
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const secret = randomBytes(bytes).toString('base64url');
  await writeFile(file, secret, { mode: 0o600, flag: 'wx' });
  return secret;
}
