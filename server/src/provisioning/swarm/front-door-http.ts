import http from 'node:http';

/**
 * One HTTP request to a front door at `address:port` for `host` (front-door.ts). Never rejects: a
 * connection that fails or times out answers status 0 with the error's message.
 */
export function requestThrough(
  address: string,
  port: number,
  request: { host: string; method: string; path: string; body?: unknown },
): Promise<{ status: number; text: string }> {
  const { host, method, path, body } = request;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: address,
        port,
        method,
        path,
        headers: {
          Host: host,
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
            : {}),
        },
        agent: false,
        timeout: 15_000,
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error) => resolve({ status: 0, text: error.message }));
    req.end(payload);
  });
}
