// A closed-loop HTTP load generator, run in a worker thread so the server under test keeps its own
// event loop: `concurrency` keep-alive connections send GETs back to back for `seconds`.
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

export interface LoadJob {
  url: string;
  headers: Record<string, string>;
  seconds: number;
  concurrency: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
}

function get(agent: http.Agent, url: URL, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

async function run(job: LoadJob): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.concurrency });
  const url = new URL(job.url);
  const deadline = performance.now() + job.seconds * 1000;
  let requests = 0;
  let errors = 0;
  const loop = async () => {
    while (performance.now() < deadline) {
      const status = await get(agent, url, job.headers).catch(() => 0);
      if (status === 200) requests += 1;
      else errors += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: job.concurrency }, loop));
  agent.destroy();
  return { requests, errors, seconds: (performance.now() - started) / 1000 };
}

if (parentPort && workerData) parentPort.postMessage(await run(workerData as LoadJob));
