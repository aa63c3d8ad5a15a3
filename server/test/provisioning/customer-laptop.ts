import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/**
 * A customer's laptop for the tests of database instances' public listeners: a network namespace
 * joined to this host by a veth pair, the host's side at `hostAddress` (where the database servers
 * listen on all interfaces, and the address in the credentials), the laptop's at `laptopAddress`. Its
 * commands (the real `mariadb` and `psql` clients) run inside with `run`. Named after the test process:
 * a namespace whose process is gone (a killed run) is removed by the next one; `stop()` removes it and
 * with it the link.
 */
export interface CustomerLaptop {
  hostAddress: string;
  laptopAddress: string;
  run(command: string, args: string[], env?: Record<string, string>): Promise<LaptopResult>;
  stop(): void;
}

export interface LaptopResult {
  ok: boolean;
  stdout: string;
  stderr: string;
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

function removeAbandoned() {
  for (const name of ip('netns', 'list')
    .toString()
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')) {
    const owner = /^berth-laptop-(\d+)-/.exec(name)?.[1];
    if (owner && !alive(Number(owner))) ip('netns', 'del', name);
  }
}

export function startCustomerLaptop(): CustomerLaptop {
  removeAbandoned();
  const tag = randomBytes(3).toString('hex');
  const ns = `berth-laptop-${process.pid}-${tag}`;
  const hostSide = `bl${tag}h`;
  const nsSide = `bl${tag}n`;
  // TEST-NET-3: documentation space, no other test uses it.
  const hostAddress = '203.0.113.1';
  const laptopAddress = '203.0.113.2';
  const stop = () => {
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
    ip('addr', 'add', `${hostAddress}/24`, 'dev', hostSide);
    ip('link', 'set', hostSide, 'up');
    ip('-n', ns, 'addr', 'add', `${laptopAddress}/24`, 'dev', nsSide);
    ip('-n', ns, 'link', 'set', nsSide, 'up');
    ip('-n', ns, 'link', 'set', 'lo', 'up');
  } catch (error) {
    stop();
    throw error;
  }
  return {
    hostAddress,
    laptopAddress,
    run(command, args, env = {}) {
      return new Promise((resolve) => {
        execFile(
          '/usr/bin/ip',
          ['netns', 'exec', ns, command, ...args],
          { env: { PATH: '/usr/bin:/bin', ...env }, timeout: 20_000 },
          (error, stdout, stderr) => resolve({ ok: !error, stdout: stdout.trim(), stderr: stderr.trim() }),
        );
      });
    },
    stop,
  };
}
