import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/**
 * "Another machine" for egress tests: a network namespace joined to this host by a veth pair, with an
 * HTTP server answering `outside world` on two addresses: one in public space (TEST-NET-2, where an
 * instance's requests to the internet go) and one in a private range (the operator's LAN or a cloud's
 * VPC, which instances must not reach). Traffic from the host reaches it directly over the link: no
 * forwarding, no firewall change on the host. `stop()` removes the namespace and with it the link.
 */
export interface OutsideHost {
  publicAddress: string;
  privateAddress: string;
  port: number;
  stop(): void;
}

const ip = (...args: string[]) => execFileSync('/usr/bin/ip', args, { stdio: 'pipe' });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Namespaces are named after the test process that made them. One left by a run that was killed holds
 * the same addresses and would take this run's traffic: remove those whose process is gone.
 */
function removeAbandoned() {
  const names = ip('netns', 'list').toString().split('\n');
  for (const name of names.map((line) => line.split(' ')[0] ?? '')) {
    const owner = /^berth-out-(\d+)-/.exec(name)?.[1];
    if (owner && !alive(Number(owner))) ip('netns', 'del', name);
  }
}

export async function startOutsideHost(): Promise<OutsideHost> {
  removeAbandoned();
  const tag = randomBytes(3).toString('hex');
  const ns = `berth-out-${process.pid}-${tag}`;
  const hostSide = `bo${tag}h`;
  const nsSide = `bo${tag}n`;
  const publicAddress = '198.51.100.2';
  const privateAddress = '10.99.0.2';
  const port = 18_080;
  let server: ChildProcess | undefined;
  const stop = () => {
    server?.kill('SIGKILL');
    try {
      ip('netns', 'del', ns);
    } catch {
      // already gone
    }
  };
  try {
    ip('netns', 'add', ns);
    ip('link', 'add', hostSide, 'type', 'veth', 'peer', 'name', nsSide);
    ip('link', 'set', nsSide, 'netns', ns);
    ip('addr', 'add', '198.51.100.1/24', 'dev', hostSide);
    ip('addr', 'add', '10.99.0.1/24', 'dev', hostSide);
    ip('link', 'set', hostSide, 'up');
    for (const address of [`${publicAddress}/24`, `${privateAddress}/24`])
      ip('-n', ns, 'addr', 'add', address, 'dev', nsSide);
    ip('-n', ns, 'link', 'set', nsSide, 'up');
    ip('-n', ns, 'link', 'set', 'lo', 'up');
    server = spawn(
      '/usr/bin/ip',
      [
        'netns',
        'exec',
        ns,
        process.execPath,
        '-e',
        `require('node:http').createServer((q, r) => r.end('outside world')).listen(${port}, '0.0.0.0', () => console.log('listening'))`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      server?.stdout?.once('data', () => resolve());
      server?.once('exit', (code) => reject(new Error(`the outside server exited with ${code}`)));
    });
    return { publicAddress, privateAddress, port, stop };
  } catch (error) {
    stop();
    throw error;
  }
}
