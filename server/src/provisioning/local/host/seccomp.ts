import {
  type ChildProcess,
  type ChildProcessWithoutNullStreams,
  type SpawnOptions,
  spawn,
} from 'node:child_process';

/**
 * The system-call filter of every sandbox that runs a tenant's code or touches a tenant's files (a site's
 * php-fpm, installer, WP-Cron, SFTP sessions and the driver's maintenance commands; an n8n instance and
 * the commands run in its sandbox). It is a classic BPF program as the kernel's seccomp takes it (an
 * array of `struct sock_filter`), handed to bubblewrap on an inherited pipe (`bwrap --seccomp 3`), which
 * loads it just before it executes the sandboxed command. From then on it holds for that process and
 * everything it starts, and nothing inside can remove it.
 *
 * It refuses what no tenant program needs, most of all the one call that took the front door down: a
 * FIFO (or device, or socket inode) made with mknod/mknodat on the site's disk, where Caddy's file server
 * would block in open() on it (issue 28). Everything else is allowed: this is a deny list on top of the
 * sandbox, not the sandbox itself. The README's security model says why each entry is here.
 *
 * Only x86_64 and aarch64 (both little-endian) are known: on any other machine building the program
 * throws, and no sandbox starts (fail closed).
 */

export type SeccompArch = 'x86_64' | 'aarch64';

/** The calls the filter names, with their numbers on each architecture (absent: no such call there). */
const SYSCALLS = {
  mknod: { x86_64: 133 },
  mknodat: { x86_64: 259, aarch64: 33 },
  socket: { x86_64: 41, aarch64: 198 },
  socketpair: { x86_64: 53, aarch64: 199 },
  keyctl: { x86_64: 250, aarch64: 219 },
  add_key: { x86_64: 248, aarch64: 217 },
  request_key: { x86_64: 249, aarch64: 218 },
  bpf: { x86_64: 321, aarch64: 280 },
  userfaultfd: { x86_64: 323, aarch64: 282 },
  perf_event_open: { x86_64: 298, aarch64: 241 },
  io_uring_setup: { x86_64: 425, aarch64: 425 },
  io_uring_enter: { x86_64: 426, aarch64: 426 },
  io_uring_register: { x86_64: 427, aarch64: 427 },
  ptrace: { x86_64: 101, aarch64: 117 },
  process_vm_readv: { x86_64: 310, aarch64: 270 },
  process_vm_writev: { x86_64: 311, aarch64: 271 },
  pidfd_getfd: { x86_64: 438, aarch64: 438 },
  mount: { x86_64: 165, aarch64: 40 },
  umount2: { x86_64: 166, aarch64: 39 },
  pivot_root: { x86_64: 155, aarch64: 41 },
  chroot: { x86_64: 161, aarch64: 51 },
  open_tree: { x86_64: 428, aarch64: 428 },
  move_mount: { x86_64: 429, aarch64: 429 },
  fsopen: { x86_64: 430, aarch64: 430 },
  fsconfig: { x86_64: 431, aarch64: 431 },
  fsmount: { x86_64: 432, aarch64: 432 },
  fspick: { x86_64: 433, aarch64: 433 },
  mount_setattr: { x86_64: 442, aarch64: 442 },
  unshare: { x86_64: 272, aarch64: 97 },
  setns: { x86_64: 308, aarch64: 268 },
  kexec_load: { x86_64: 246, aarch64: 104 },
  kexec_file_load: { x86_64: 320, aarch64: 294 },
  init_module: { x86_64: 175, aarch64: 105 },
  finit_module: { x86_64: 313, aarch64: 273 },
  delete_module: { x86_64: 176, aarch64: 106 },
  swapon: { x86_64: 167, aarch64: 224 },
  swapoff: { x86_64: 168, aarch64: 225 },
  reboot: { x86_64: 169, aarch64: 142 },
  acct: { x86_64: 163, aarch64: 89 },
  quotactl: { x86_64: 179, aarch64: 60 },
  quotactl_fd: { x86_64: 443, aarch64: 443 },
  syslog: { x86_64: 103, aarch64: 116 },
  open_by_handle_at: { x86_64: 304, aarch64: 265 },
  fanotify_init: { x86_64: 300, aarch64: 262 },
  lookup_dcookie: { x86_64: 212, aarch64: 18 },
  vhangup: { x86_64: 153, aarch64: 58 },
  iopl: { x86_64: 172 },
  ioperm: { x86_64: 173 },
  uselib: { x86_64: 134 },
  _sysctl: { x86_64: 156 },
} satisfies Record<string, Partial<Record<SeccompArch, number>>>;

type Syscall = keyof typeof SYSCALLS;

/** `AUDIT_ARCH_*` (linux/audit.h): what `seccomp_data.arch` says for each architecture's calls. */
const AUDIT_ARCH: Record<SeccompArch, number> = { x86_64: 0xc000003e, aarch64: 0xc00000b7 };
/** x86_64's x32 ABI: the same AUDIT_ARCH, call numbers with this bit set (and other meanings). */
const X32_SYSCALL_BIT = 0x40000000;

export const EPERM = 1;
export const EAFNOSUPPORT = 97;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;

/** Calls refused outright (EPERM), by what they would give a tenant. */
export const REFUSED: ReadonlyArray<{ calls: Syscall[]; why: string }> = [
  {
    calls: ['keyctl', 'add_key', 'request_key'],
    why: 'kernel keyrings: shared kernel state with a long record of privilege escalations',
  },
  { calls: ['bpf'], why: 'eBPF programs: kernel code paths no tenant needs' },
  {
    calls: ['userfaultfd'],
    why: 'user-space page faults: the classic way to widen kernel race windows in exploits',
  },
  { calls: ['perf_event_open'], why: 'performance counters: side channels and kernel attack surface' },
  {
    calls: ['io_uring_setup', 'io_uring_enter', 'io_uring_register'],
    why: 'io_uring: a large kernel surface; Node and PHP fall back to ordinary calls',
  },
  {
    calls: ['ptrace', 'process_vm_readv', 'process_vm_writev', 'pidfd_getfd'],
    why: "debugging and reading other processes' memory or files: no tenant runs a debugger",
  },
  {
    calls: [
      'mount',
      'umount2',
      'pivot_root',
      'chroot',
      'open_tree',
      'move_mount',
      'fsopen',
      'fsconfig',
      'fsmount',
      'fspick',
      'mount_setattr',
    ],
    why: 'changing the file system view: the sandbox builds it, nothing inside may change it',
  },
  { calls: ['unshare', 'setns'], why: 'new or other namespaces: the sandbox sets them up once' },
  {
    calls: [
      'kexec_load',
      'kexec_file_load',
      'init_module',
      'finit_module',
      'delete_module',
      'swapon',
      'swapoff',
      'reboot',
      'acct',
      'quotactl',
      'quotactl_fd',
      'syslog',
      'open_by_handle_at',
      'fanotify_init',
      'lookup_dcookie',
      'vhangup',
      'iopl',
      'ioperm',
      'uselib',
      '_sysctl',
    ],
    why: "the host's administration (kernel, modules, swap, accounting, kernel log, raw I/O ports, file handles): never a tenant's",
  },
];

/**
 * Calls allowed only for some values of one argument (its low 32 bits: every one here is an int or a
 * mode_t). The rest gets `errno`.
 */
const ARGUMENT_RULES: ReadonlyArray<{
  call: Syscall;
  /** Which argument (0-based). */
  arg: number;
  /** Compared after `& mask` (all of it when absent). */
  mask?: number;
  allowed: number[];
  errno: number;
  why: string;
}> = [
  {
    call: 'mknod',
    arg: 1,
    mask: S_IFMT,
    allowed: [S_IFREG, 0],
    errno: EPERM,
    why: 'only regular files: a FIFO, device or socket inode on the disk would block or mislead the front door',
  },
  { call: 'mknodat', arg: 2, mask: S_IFMT, allowed: [S_IFREG, 0], errno: EPERM, why: 'as mknod' },
  {
    call: 'socket',
    arg: 0,
    allowed: [AF_UNIX, AF_INET, AF_INET6, AF_NETLINK],
    errno: EAFNOSUPPORT,
    why: 'only unix, IPv4, IPv6 and netlink (glibc asks it for addresses): no rare protocol modules loaded on demand',
  },
  { call: 'socketpair', arg: 0, allowed: [AF_UNIX], errno: EAFNOSUPPORT, why: 'only unix' },
];

// Classic BPF (linux/filter.h, linux/bpf_common.h) and seccomp (linux/seccomp.h).
const BPF_LD_W_ABS = 0x20;
const BPF_ALU_AND_K = 0x54;
const BPF_JEQ_K = 0x15;
const BPF_JSET_K = 0x45;
const BPF_RET_K = 0x06;
export const SECCOMP_RET_KILL_PROCESS = 0x80000000;
export const SECCOMP_RET_ERRNO = 0x00050000;
export const SECCOMP_RET_ALLOW = 0x7fff0000;
/** Offsets in `struct seccomp_data`: nr (int), arch (u32), instruction pointer, then six u64 args. */
const NR_OFFSET = 0;
const ARCH_OFFSET = 4;
/** The low half of argument `i` (little-endian). */
const argOffset = (i: number) => 16 + 8 * i;

interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

const load = (offset: number): Instruction => ({ code: BPF_LD_W_ABS, jt: 0, jf: 0, k: offset });
const ret = (k: number): Instruction => ({ code: BPF_RET_K, jt: 0, jf: 0, k });
/** If A == k go ahead `jt` instructions (after this one), else `jf`. */
const jeq = (k: number, jt: number, jf: number): Instruction => ({ code: BPF_JEQ_K, jt, jf, k });

/**
 * The filter's instructions for `arch`: every rule a small block that either returns or falls through to
 * the next, read top to bottom:
 *
 *   arch is not `arch` (a 32-bit call on a 64-bit kernel, say)  → kill the process
 *   an x32 call on x86_64                                        → kill the process
 *   for each argument rule: this call → its argument allowed ? allow : errno
 *   for each refused call: this call → EPERM
 *   anything else → allow
 */
function seccompInstructions(arch: SeccompArch): Instruction[] {
  const numberOf = (call: Syscall): number | undefined =>
    (SYSCALLS[call] as Partial<Record<SeccompArch, number>>)[arch];
  const program: Instruction[] = [
    load(ARCH_OFFSET),
    jeq(AUDIT_ARCH[arch], 1, 0),
    ret(SECCOMP_RET_KILL_PROCESS),
    load(NR_OFFSET),
  ];
  if (arch === 'x86_64')
    program.push({ code: BPF_JSET_K, jt: 0, jf: 1, k: X32_SYSCALL_BIT }, ret(SECCOMP_RET_KILL_PROCESS));
  for (const rule of ARGUMENT_RULES) {
    const nr = numberOf(rule.call);
    if (nr === undefined) continue;
    const checks = rule.allowed.length;
    // The block after the jeq: load, [and], one jeq per allowed value, ret errno, ret allow.
    const block: Instruction[] = [
      load(argOffset(rule.arg)),
      ...(rule.mask === undefined ? [] : [{ code: BPF_ALU_AND_K, jt: 0, jf: 0, k: rule.mask }]),
      // The i-th check jumps over the checks after it and the errno return, onto the allow.
      ...rule.allowed.map((value, i) => jeq(value, checks - i, 0)),
      ret(SECCOMP_RET_ERRNO | rule.errno),
      ret(SECCOMP_RET_ALLOW),
    ];
    program.push(jeq(nr, 0, block.length), ...block);
  }
  for (const group of REFUSED) {
    for (const call of group.calls) {
      const nr = numberOf(call);
      if (nr === undefined) continue;
      program.push(jeq(nr, 0, 1), ret(SECCOMP_RET_ERRNO | EPERM));
    }
  }
  program.push(ret(SECCOMP_RET_ALLOW));
  return program;
}

/** The program as bytes: 8 per instruction (u16 code, u8 jt, u8 jf, u32 k; little-endian). */
export function seccompProgram(arch: SeccompArch): Buffer {
  const instructions = seccompInstructions(arch);
  if (instructions.length > 4096) throw new Error('seccomp program too long'); // BPF_MAXINSNS
  const bytes = Buffer.alloc(instructions.length * 8);
  instructions.forEach(({ code, jt, jf, k }, i) => {
    if (jt > 255 || jf > 255) throw new Error('seccomp jump out of range');
    bytes.writeUInt16LE(code, i * 8);
    bytes.writeUInt8(jt, i * 8 + 2);
    bytes.writeUInt8(jf, i * 8 + 3);
    bytes.writeUInt32LE(k, i * 8 + 4);
  });
  return bytes;
}

/** The architecture this host runs, or an error naming it when the filter does not know it. */
export function hostSeccompArch(nodeArch: string = process.arch): SeccompArch {
  if (nodeArch === 'x64') return 'x86_64';
  if (nodeArch === 'arm64') return 'aarch64';
  throw new Error(
    `Sandboxes need a system call filter for this machine's architecture (${nodeArch}); only x86_64 and aarch64 are supported, so no site or n8n instance can run here`,
  );
}

let hostProgram: Buffer | undefined;

/** The file descriptor bwrap reads the filter from (`--seccomp 3`): a spawn's fourth stdio entry. */
const SECCOMP_FD = 3;

/** bwrap's option loading the filter from SECCOMP_FD. */
export const SECCOMP_ARGS = ['--seccomp', String(SECCOMP_FD)] as const;

/** This host's program (built once; throws on an unknown architecture). */
export function hostSeccompProgram(): Buffer {
  hostProgram ??= seccompProgram(hostSeccompArch());
  return hostProgram;
}

/**
 * Writes the filter into the pipe a child got as SECCOMP_FD (stdio entry 'pipe') and closes our end once
 * it is written (the data stays readable; an open end would keep this process alive). A child that dies
 * before reading it (bwrap refused its arguments) makes the write fail: its own exit says why.
 */
export function feedSeccomp(child: ChildProcess, program: Uint8Array): void {
  const pipe = child.stdio[SECCOMP_FD];
  if (!pipe || !('end' in pipe)) throw new Error('the sandbox was spawned without its seccomp pipe');
  pipe.on('error', () => {});
  pipe.end(program, () => pipe.destroy());
}

/**
 * Spawns a sandbox (a command line that reaches `bwrap --seccomp 3`) with stdin, stdout and stderr as
 * pipes and the filter on fd 3. Throws before spawning anything on a machine the filter does not know.
 */
export function spawnSandbox(
  command: string,
  args: string[],
  options: Omit<SpawnOptions, 'stdio'>,
): ChildProcessWithoutNullStreams {
  const program = hostSeccompProgram();
  const child = spawn(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
  feedSeccomp(child, program);
  if (!child.stdin || !child.stdout || !child.stderr) throw new Error('sandbox spawned without its pipes');
  // Checked just above: the three standard pipes exist.
  return child as ChildProcessWithoutNullStreams;
}
