import http from 'node:http';

/**
 * One GET of `/` on a site's host through the front door (its temporary URL `url`), on a new connection,
 * with `cookie` when given (a logged-in cookie: WordPress renders the page, never cached): its time in
 * milliseconds and its status.
 */
export function sitePage(url: URL, cookie?: string): Promise<{ ms: number; status: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.get(
      {
        host: '127.0.0.1',
        port: url.port,
        path: '/',
        headers: { Host: url.host, ...(cookie ? { Cookie: cookie } : {}) },
        agent: false,
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ ms: performance.now() - t0, status: response.statusCode ?? 0 }));
      },
    );
    request.on('error', reject);
  });
}
