import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// Cloudflare's documented test secrets: always passes, always fails, always "already spent".
export const PASS_SECRET = '1x0000000000000000000000000000000AA';
export const FAIL_SECRET = '2x0000000000000000000000000000000AA';
export const SPENT_SECRET = '3x0000000000000000000000000000000AA';
export const TEST_SITE_KEY = '1x00000000000000000000AA';

/**
 * A local siteverify with Cloudflare's semantics: with the pass secret a token passes once and is
 * `timeout-or-duplicate` after that. Tokens 'http-500', 'not-json' and 'slow' make it misbehave.
 */
export async function startFakeTurnstile() {
  const requests: Record<string, string>[] = [];
  const spent = new Set<string>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(body));
      requests.push(form);
      const answer = (outcome: object) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ challenge_ts: new Date().toISOString(), hostname: 'example.com', ...outcome }),
        );
      };
      const token = form.response ?? '';
      if (token === 'http-500') return void res.writeHead(500).end('oops');
      if (token === 'not-json') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
      if (token === 'slow') return void setTimeout(() => answer({ success: true }), 2000);
      if (form.secret === PASS_SECRET) {
        if (spent.has(token)) return answer({ success: false, 'error-codes': ['timeout-or-duplicate'] });
        spent.add(token);
        return answer({ success: true, 'error-codes': [] });
      }
      if (form.secret === FAIL_SECRET)
        return answer({ success: false, 'error-codes': ['invalid-input-response'] });
      if (form.secret === SPENT_SECRET)
        return answer({ success: false, 'error-codes': ['timeout-or-duplicate'] });
      answer({ success: false, 'error-codes': ['invalid-input-secret'] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/turnstile/v0/siteverify`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
