import http from 'node:http';

/**
 * A small n8n REST client for tests that goes through the front door (Caddy) like a browser: the Host
 * header names the instance, the session cookie n8n sets at login is sent back, and the `browser-id`
 * header n8n binds sessions to is always the same.
 */
export interface N8nResponse {
  status: number;
  text: string;
  headers: http.IncomingHttpHeaders;
  json: () => { data?: unknown } & Record<string, unknown>;
}

export function frontDoorRequest(
  url: string,
  method: string,
  urlPath: string,
  options: { body?: unknown; cookie?: string; raw?: string; contentType?: string; address?: string } = {},
): Promise<N8nResponse> {
  const target = new URL(url);
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        // The front door's address (the local one answers on loopback; a swarm region's on its manager).
        host: options.address ?? '127.0.0.1',
        port: Number(target.port || 80),
        method,
        path: urlPath,
        agent: false,
        timeout: 60_000,
        headers: {
          Host: target.host,
          'browser-id': 'berth-test',
          ...(options.cookie ? { Cookie: options.cookie } : {}),
          ...(payload !== undefined
            ? {
                'Content-Type': options.contentType ?? 'application/json',
                'Content-Length': Buffer.byteLength(payload),
              }
            : {}),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            text,
            headers: response.headers,
            json: () => JSON.parse(text),
          }),
        );
      },
    );
    request.on('timeout', () => request.destroy(new Error(`${method} ${urlPath} timed out`)));
    request.on('error', reject);
    request.end(payload);
  });
}

/** Logs in as the owner and answers a client bound to that session. */
export async function n8nSession(url: string, email: string, password: string, address?: string) {
  const login = await frontDoorRequest(url, 'POST', '/rest/login', {
    body: { emailOrLdapLoginId: email, password },
    address,
  });
  if (login.status !== 200) throw new Error(`login answered ${login.status}: ${login.text}`);
  const cookie = (login.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
  return {
    login,
    call: (method: string, urlPath: string, body?: unknown) =>
      frontDoorRequest(url, method, urlPath, { body, cookie, address }),
  };
}

/** A workflow: Webhook trigger (POST /webhook/<path>) answering with a Set node's JSON. */
export function webhookWorkflow(name: string, webhookPath: string, answer: string) {
  return {
    name,
    active: false,
    settings: { executionOrder: 'v1' },
    connections: { Webhook: { main: [[{ node: 'Set', type: 'main', index: 0 }]] } },
    nodes: [
      {
        id: 'b1b1b1b1-0000-4000-8000-000000000001',
        name: 'Webhook',
        type: 'n8n-nodes-base.webhook',
        typeVersion: 2,
        position: [0, 0],
        webhookId: 'c2c2c2c2-0000-4000-8000-000000000002',
        parameters: { httpMethod: 'POST', path: webhookPath, responseMode: 'lastNode', options: {} },
      },
      {
        id: 'b1b1b1b1-0000-4000-8000-000000000003',
        name: 'Set',
        type: 'n8n-nodes-base.set',
        typeVersion: 3.4,
        position: [200, 0],
        parameters: {
          mode: 'manual',
          assignments: {
            assignments: [
              { id: 'a1', name: 'answer', value: answer, type: 'string' },
              { id: 'a2', name: 'echo', value: '={{ $json.body.ping }}', type: 'string' },
            ],
          },
          options: {},
        },
      },
    ],
  };
}
