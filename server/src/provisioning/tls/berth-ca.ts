import { execFile } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Berth's own certificate authority and the server certificates it issues, for whatever a driver serves
 * over TLS on its own ports (the database servers of database instances). Driver-neutral: the local
 * driver keeps its CA under its data root; another driver can keep one per region.
 *
 * - The CA: an EC P-256 key and a self-signed certificate (10 years), made once with Debian's `openssl`
 *   in `dir` (the folder root's, 700; the key 600). Customers download its certificate from their
 *   instance page and give it to their client (`--ssl-ca`, `sslrootcert`) to verify the server.
 * - A server certificate names the host customers connect to (a DNS name or an IP address, plus
 *   `localhost` and 127.0.0.1 for the platform's own clients) and is reissued when its names change or
 *   it has less than 30 days left (825 days each).
 * - An operator's certificate (from ACME, e.g. certbot's fullchain.pem and privkey.pem) takes the place
 *   of Berth's: clients then verify it against the public CAs they already trust, and no CA is offered
 *   for download.
 */

const run = promisify(execFile);
const OPENSSL = '/usr/bin/openssl';
const CA_DAYS = 3650;
const SERVER_DAYS = 825;
const RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;

export interface ServerCertificate {
  /** The certificate chain a server presents (PEM). */
  certPem: string;
  keyPem: string;
  /** The CA certificate clients verify it with (Berth's own), or null for an operator's (public) one. */
  caPem: string | null;
  /** SHA-256 of certificate and key: changes when either does (servers then reload them). */
  fingerprint: string;
}

export interface CertificateSource {
  /** The current server certificate (issued or renewed as needed). */
  current(): Promise<ServerCertificate>;
}

/** The host names and addresses a server certificate for `publicHost` covers. */
export function certificateNames(publicHost: string): string[] {
  return [...new Set([publicHost, 'localhost', '127.0.0.1'])];
}

const subjectAltName = (names: readonly string[]) =>
  names.map((name) => (isIP(name) ? `IP:${name}` : `DNS:${name}`)).join(',');

const fingerprintOf = (certPem: string, keyPem: string) =>
  createHash('sha256').update(certPem).update(keyPem).digest('hex');

async function writePrivate(file: string, text: string): Promise<void> {
  await writeFile(`${file}.tmp`, text, { mode: 0o600 });
  await rename(`${file}.tmp`, file);
}

/** Whether `certPem` covers exactly `names` and lives longer than RENEW_BEFORE_MS. */
function stillGood(certPem: string, names: readonly string[]): boolean {
  try {
    const cert = new X509Certificate(certPem);
    if (new Date(cert.validTo).getTime() - Date.now() < RENEW_BEFORE_MS) return false;
    const have = (cert.subjectAltName ?? '')
      .split(', ')
      .map((entry) => entry.replace(/^(DNS|IP Address):/, ''));
    return names.every((name) => have.includes(name)) && have.length === names.length;
  } catch {
    return false;
  }
}

/** Berth's CA in `dir` and the server certificate it issues for `names`. */
export function berthCertificates(dir: string, names: readonly string[]): CertificateSource {
  const caKey = path.join(dir, 'ca.key');
  const caCert = path.join(dir, 'ca.crt');
  const serverKey = path.join(dir, 'server.key');
  const serverCert = path.join(dir, 'server.crt');
  let making: Promise<ServerCertificate> | undefined;

  async function ensureCa(): Promise<string> {
    if (existsSync(caKey) && existsSync(caCert)) return readFile(caCert, 'utf8');
    if (!existsSync(OPENSSL)) throw new Error(`${OPENSSL} is missing (Debian package openssl)`);
    await rm(path.join(dir, 'ca.key.tmp'), { force: true });
    await run(OPENSSL, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${caKey}.tmp`]);
    await chmod(`${caKey}.tmp`, 0o600);
    await run(OPENSSL, [
      'req',
      '-x509',
      '-new',
      '-key',
      `${caKey}.tmp`,
      '-sha256',
      '-days',
      String(CA_DAYS),
      '-subj',
      `/O=Berth/CN=Berth database CA ${createHash('sha256').update(dir).digest('hex').slice(0, 8)}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE,pathlen:0',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      `${caCert}.tmp`,
    ]);
    await rename(`${caCert}.tmp`, caCert);
    await rename(`${caKey}.tmp`, caKey);
    return readFile(caCert, 'utf8');
  }

  async function issue(caPem: string): Promise<ServerCertificate> {
    const existing =
      existsSync(serverCert) && existsSync(serverKey) ? await readFile(serverCert, 'utf8') : '';
    if (existing && stillGood(existing, names)) {
      const keyPem = await readFile(serverKey, 'utf8');
      return { certPem: existing, keyPem, caPem, fingerprint: fingerprintOf(existing, keyPem) };
    }
    const key = `${serverKey}.new`;
    const csr = `${serverCert}.csr`;
    const ext = `${serverCert}.ext`;
    try {
      await run(OPENSSL, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
      await chmod(key, 0o600);
      await run(OPENSSL, ['req', '-new', '-key', key, '-subj', `/CN=${names[0]}`, '-out', csr]);
      await writeFile(
        ext,
        [
          `subjectAltName=${subjectAltName(names)}`,
          'basicConstraints=critical,CA:FALSE',
          'keyUsage=critical,digitalSignature',
          'extendedKeyUsage=serverAuth',
          '',
        ].join('\n'),
      );
      const { stdout } = await run(OPENSSL, [
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        caCert,
        '-CAkey',
        caKey,
        '-set_serial',
        `0x${createHash('sha256').update(`${Date.now()}${Math.random()}`).digest('hex').slice(0, 30)}`,
        '-sha256',
        '-days',
        String(SERVER_DAYS),
        '-extfile',
        ext,
      ]);
      const keyPem = await readFile(key, 'utf8');
      await writePrivate(serverKey, keyPem);
      await writePrivate(serverCert, stdout);
      return { certPem: stdout, keyPem, caPem, fingerprint: fingerprintOf(stdout, keyPem) };
    } finally {
      await Promise.all([key, csr, ext].map((file) => rm(file, { force: true })));
    }
  }

  return {
    current() {
      making ??= (async () => {
        await mkdir(dir, { recursive: true, mode: 0o700 });
        await chmod(dir, 0o700);
        return issue(await ensureCa());
      })().finally(() => {
        making = undefined;
      });
      return making;
    },
  };
}

/** An operator's certificate and key files (e.g. from ACME), read afresh at every call. */
export function operatorCertificate(files: { certFile: string; keyFile: string }): CertificateSource {
  return {
    async current() {
      const [certPem, keyPem] = await Promise.all([
        readFile(files.certFile, 'utf8'),
        readFile(files.keyFile, 'utf8'),
      ]);
      return { certPem, keyPem, caPem: null, fingerprint: fingerprintOf(certPem, keyPem) };
    },
  };
}
