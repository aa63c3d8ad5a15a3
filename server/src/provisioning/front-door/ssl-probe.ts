import { X509Certificate } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import tls from 'node:tls';
import type { SslStatus } from '../engine.ts';

/**
 * Certificate status of a custom domain, as a visitor would find it: a TLS handshake with the domain as
 * SNI against the front door, verified against the CA that should have issued it (Caddy's internal root
 * locally, the system roots for ACME), plus Caddy's stored certificate and its issuance log lines.
 */

export interface ProbeTarget {
  host: string;
  port: number;
  domain: string;
  /** PEM of the root to trust; the system roots when absent. */
  ca: string | undefined;
}

export type ProbeResult = { ok: true; expiresAt: string; serial: string } | { ok: false; reason: string };

function probeCertificate(target: ProbeTarget, timeoutMs = 5000): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host: target.host,
      port: target.port,
      servername: target.domain,
      ...(target.ca ? { ca: target.ca } : {}),
      rejectUnauthorized: false,
      timeout: timeoutMs,
    });
    const done = (result: ProbeResult) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate();
      if (!socket.authorized) return done({ ok: false, reason: `${socket.authorizationError}` });
      const mismatch = tls.checkServerIdentity(target.domain, cert);
      if (mismatch) return done({ ok: false, reason: mismatch.message });
      done({ ok: true, expiresAt: new Date(cert.valid_to).toISOString(), serial: cert.serialNumber });
    });
    socket.once('timeout', () => done({ ok: false, reason: 'the TLS handshake timed out' }));
    socket.once('error', (error) => done({ ok: false, reason: error.message }));
  });
}

/** The certificate Caddy stored for the domain (under any issuer), if any. */
async function storedCertificate(
  certificatesDir: string,
  domain: string,
): Promise<{ expiresAt: string; serial: string } | undefined> {
  if (!existsSync(certificatesDir)) return undefined;
  for (const issuer of readdirSync(certificatesDir)) {
    const file = path.join(certificatesDir, issuer, domain, `${domain}.crt`);
    if (!existsSync(file)) continue;
    try {
      const cert = new X509Certificate(await readFile(file));
      return { expiresAt: new Date(cert.validTo).toISOString(), serial: cert.serialNumber };
    } catch {}
  }
  return undefined;
}

/** The error of Caddy's latest issuance attempt for the domain, unless it later succeeded. */
async function lastIssuanceError(logFile: string, domain: string): Promise<string | undefined> {
  if (!existsSync(logFile)) return undefined;
  const handle = await open(logFile, 'r');
  let text: string;
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, 1_000_000);
    const { buffer } = await handle.read(Buffer.alloc(length), 0, length, size - length);
    text = buffer.toString();
  } finally {
    await handle.close();
  }
  let error: string | undefined;
  for (const line of text.split('\n')) {
    if (!line.includes('"tls.obtain"') && !line.includes('"tls.issuance')) continue;
    let entry: { level?: string; msg?: string; identifier?: string; error?: string };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry.identifier !== domain) continue;
    if (entry.msg === 'certificate obtained successfully') error = undefined;
    else if (entry.level === 'error') error = entry.error ?? entry.msg;
  }
  return error;
}

export async function sslStatusOf(
  target: ProbeTarget,
  certificatesDir: string,
  logFile: string,
): Promise<SslStatus> {
  const lastChecked = new Date().toISOString();
  const probe = await probeCertificate(target);
  if (probe.ok) {
    return {
      domain: target.domain,
      status: 'Active',
      message: 'HTTPS is enabled',
      lastChecked,
      expiresAt: probe.expiresAt,
    };
  }
  const stored = await storedCertificate(certificatesDir, target.domain);
  const failure = await lastIssuanceError(logFile, target.domain);
  const base = { domain: target.domain, lastChecked, ...(stored ? { expiresAt: stored.expiresAt } : {}) };
  if (failure) return { ...base, status: 'FAILED', message: `Certificate issuance failed: ${failure}` };
  return {
    ...base,
    status: 'Pending',
    message: `The certificate is not in place yet: the domain must point at this server (an A record for an apex domain, a CNAME for a subdomain) and the certificate be issued (${probe.reason})`,
  };
}
