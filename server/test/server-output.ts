import { type ChildProcess, spawn } from 'node:child_process';

const serverDir = new URL('../', import.meta.url).pathname;

/**
 * `server/src/main.ts` started as a child process, as `npm start` starts it, on a free loopback port,
 * with `env` over PATH alone (nothing else of the test's environment leaks in), watched (below).
 */
export function spawnServer(env: Record<string, string>) {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: serverDir,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, ...watchServerOutput(child) };
}

/**
 * Watches a Berth server started as a child process (`server/src/main.ts`): `port` resolves with the
 * port of its "listening on … (port N)" line, or rejects with what it printed if it exits first;
 * `output()` is everything it has printed so far (for failure reports).
 */
export function watchServerOutput(child: ChildProcess): { port: Promise<string>; output: () => string } {
  let output = '';
  const port = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on .* \(port (\d+)\)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  return { port, output: () => output };
}
