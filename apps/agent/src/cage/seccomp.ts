/**
 * The system calls a caged game may not make (docs/security.md, "The cage"): a classic BPF program that
 * bubblewrap loads (`--seccomp FD`) before the game runs. It refuses, with EPERM, what Docker's default
 * profile refuses a container without capabilities — namespaces (`unshare`, `setns`, `clone` with a
 * namespace flag; `clone3`, whose flags a filter cannot read, answers ENOSYS so libc falls back to
 * `clone`), mounts, keyrings, `bpf`, `perf_event_open`, `ptrace` and reading other processes' memory,
 * kernel modules, `kexec`, clocks, swap, reboot, accounting, quotas, file handles, `userfaultfd`,
 * `AF_VSOCK` sockets (a virtual machine's channel to its host) — and `io_uring` (its operations bypass
 * this filter). Any other architecture's calls (32-bit x86 on a 64-bit
 * kernel) end the process. No library writes these programs for Node; the format is the kernel's
 * (`struct sock_filter`, `struct seccomp_data`), and `seccomp.test.ts` runs it in a real cage.
 */

/** `struct seccomp_data`: nr at 0, arch at 4, args[0]'s low 32 bits at 16 (little-endian). */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

const RET_ALLOW = 0x7fff0000;
const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
const AF_VSOCK = 40;

/** Every namespace flag of clone(2): CLONE_NEWTIME, NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET. */
export const CLONE_NAMESPACE_FLAGS = 0x00000080 | 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

interface Table {
  audit: number;
  /** Numbers at and above this are another ABI on the same architecture (x86-64's x32). */
  abiLimit: number | null;
  clone: number;
  clone3: number;
  socket: number;
  denied: Record<string, number>;
}

/** From the kernel's syscall tables (arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h). */
const TABLES: Record<string, Table> = {
  x64: {
    audit: 0xc000003e,
    abiLimit: 0x40000000,
    clone: 56,
    clone3: 435,
    socket: 41,
    denied: {
      uselib: 134,
      ustat: 136,
      sysfs: 139,
      vhangup: 153,
      pivot_root: 155,
      _sysctl: 156,
      acct: 163,
      settimeofday: 164,
      mount: 165,
      umount2: 166,
      swapon: 167,
      swapoff: 168,
      reboot: 169,
      sethostname: 170,
      setdomainname: 171,
      iopl: 172,
      ioperm: 173,
      create_module: 174,
      init_module: 175,
      delete_module: 176,
      get_kernel_syms: 177,
      query_module: 178,
      quotactl: 179,
      nfsservctl: 180,
      ptrace: 101,
      syslog: 103,
      lookup_dcookie: 212,
      clock_settime: 227,
      kexec_load: 246,
      add_key: 248,
      request_key: 249,
      keyctl: 250,
      migrate_pages: 256,
      unshare: 272,
      move_pages: 279,
      perf_event_open: 298,
      name_to_handle_at: 303,
      open_by_handle_at: 304,
      clock_adjtime: 305,
      setns: 308,
      process_vm_readv: 310,
      process_vm_writev: 311,
      kcmp: 312,
      finit_module: 313,
      kexec_file_load: 320,
      bpf: 321,
      userfaultfd: 323,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      open_tree: 428,
      move_mount: 429,
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      pidfd_getfd: 438,
      mount_setattr: 442,
      quotactl_fd: 443,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    abiLimit: null,
    clone: 220,
    clone3: 435,
    socket: 198,
    denied: {
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      setns: 268,
      unshare: 97,
      mount: 40,
      umount2: 39,
      pivot_root: 41,
      nfsservctl: 42,
      quotactl: 60,
      acct: 89,
      init_module: 105,
      delete_module: 106,
      kexec_load: 104,
      syslog: 116,
      ptrace: 117,
      sethostname: 161,
      setdomainname: 162,
      settimeofday: 170,
      clock_settime: 112,
      add_key: 217,
      request_key: 218,
      keyctl: 219,
      swapon: 224,
      swapoff: 225,
      migrate_pages: 238,
      move_pages: 239,
      perf_event_open: 241,
      name_to_handle_at: 264,
      open_by_handle_at: 265,
      clock_adjtime: 266,
      process_vm_readv: 270,
      process_vm_writev: 271,
      kcmp: 272,
      finit_module: 273,
      bpf: 280,
      userfaultfd: 282,
      kexec_file_load: 294,
      reboot: 142,
      vhangup: 58,
      open_tree: 428,
      move_mount: 429,
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      pidfd_getfd: 438,
      mount_setattr: 442,
      quotactl_fd: 443,
    },
  },
};

/** The system calls refused on this architecture, by name (for the documentation and the tests). */
export function deniedSyscalls(arch = process.arch): Record<string, number> {
  return TABLES[arch]?.denied ?? {};
}

type Insn = [code: number, jt: number, jf: number, k: number];

/** The filter for `arch` (Node's `process.arch`), or null where the agent has no table for it. */
export function seccompProgram(arch = process.arch): Buffer | null {
  const table = TABLES[arch];
  if (!table) return null;
  const numbers = [...new Set(Object.values(table.denied))];
  // Layout: the checks, then three returns at the end (allow, EPERM, ENOSYS), reached by forward jumps.
  const body: { insn: Insn; to?: { jt?: 'eperm' | 'enosys' | 'allow'; jf?: 'eperm' | 'enosys' | 'allow' } }[] = [];
  body.push({ insn: [LD_W_ABS, 0, 0, ARCH] });
  body.push({ insn: [JEQ_K, 1, 0, table.audit] });
  body.push({ insn: [RET_K, 0, 0, RET_KILL_PROCESS] });
  body.push({ insn: [LD_W_ABS, 0, 0, NR] });
  if (table.abiLimit !== null) body.push({ insn: [JGE_K, 0, 0, table.abiLimit], to: { jt: 'eperm' } });
  for (const nr of numbers) body.push({ insn: [JEQ_K, 0, 0, nr], to: { jt: 'eperm' } });
  body.push({ insn: [JEQ_K, 0, 0, table.clone3], to: { jt: 'enosys' } });
  // socket: refused for AF_VSOCK, the channel to a virtual machine's host (no game has a use for it).
  body.push({ insn: [JEQ_K, 0, 2, table.socket] });
  body.push({ insn: [LD_W_ABS, 0, 0, ARG0_LOW] });
  body.push({ insn: [JEQ_K, 0, 0, AF_VSOCK], to: { jt: 'eperm', jf: 'allow' } });
  // clone: refused when its flags (the first argument) ask for any new namespace.
  body.push({ insn: [JEQ_K, 0, 0, table.clone], to: { jf: 'allow' } });
  body.push({ insn: [LD_W_ABS, 0, 0, ARG0_LOW] });
  body.push({ insn: [JSET_K, 0, 0, CLONE_NAMESPACE_FLAGS], to: { jt: 'eperm', jf: 'allow' } });
  const target = { allow: body.length, eperm: body.length + 1, enosys: body.length + 2 };
  const program: Insn[] = body.map(({ insn, to }, i) => {
    const [code, jt, jf, k] = insn;
    const jump = (label: keyof typeof target | undefined, fallback: number) => (label ? target[label] - i - 1 : fallback);
    const resolved: Insn = [code, jump(to?.jt, jt), jump(to?.jf, jf), k];
    if (resolved[1] > 255 || resolved[2] > 255) throw new Error('The seccomp program has a jump longer than BPF allows.');
    return resolved;
  });
  program.push([RET_K, 0, 0, RET_ALLOW], [RET_K, 0, 0, RET_ERRNO | EPERM], [RET_K, 0, 0, RET_ERRNO | ENOSYS]);
  const out = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    out.writeUInt16LE(code, i * 8);
    out.writeUInt8(jt, i * 8 + 2);
    out.writeUInt8(jf, i * 8 + 3);
    out.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return out;
}
