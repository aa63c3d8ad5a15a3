// A closed-loop HTTP load generator, run as its own process (`node load.ts '<job json>'`) so neither the
// server under test nor the baseline shares an event loop or a core with it: `concurrency` keep-alive
// connections send GETs back to back for `seconds`; it prints one JSON LoadResult on stdout.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

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
  /** Latency percentiles of the successful requests, in milliseconds. */
  p50: number;
  p99: number;
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
  const latencies: number[] = [];
  let errors = 0;
  const loop = async () => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      const status = await get(agent, url, job.headers).catch(() => 0);
      if (status === 200) latencies.push(performance.now() - sent);
      else errors += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: job.concurrency }, loop));
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  return {
    requests: latencies.length,
    errors,
    seconds: (performance.now() - started) / 1000,
    p50: at(50),
    p99: at(99),
  };
}

/** Runs one load job in a child process on this Node binary and answers its result. */
export function load(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), JSON.stringify(job)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve(JSON.parse(out) as LoadResult);
      else reject(new Error(`the load generator exited with ${code}`));
    });
  });
}

if (import.meta.main) {
  process.stdout.write(JSON.stringify(await run(JSON.parse(process.argv[2] ?? '') as LoadJob)));
}
