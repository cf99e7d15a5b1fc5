/**
 * A classic-BPF seccomp program for `bwrap --seccomp`: sandboxed commands may not create user namespaces.
 * A nested user namespace would hand the command capabilities over fresh mount namespaces (tmpfs mounts
 * outside every size limit) and the kernel attack surface that distributions keep from unprivileged users.
 * bubblewrap's own `--disable-userns` cannot be combined with the uid mapping the runner does as root.
 */

interface ArchSyscalls {
  /** AUDIT_ARCH_* of `seccomp_data.arch`. */
  audit: number;
  unshare: number;
  clone: number;
  clone3: number;
  /** x32 system calls on x86_64 carry this bit; they are refused wholesale. */
  x32Bit?: number;
}

const ARCHES: Partial<Record<NodeJS.Architecture, ArchSyscalls>> = {
  x64: { audit: 0xc000003e, unshare: 272, clone: 56, clone3: 435, x32Bit: 0x40000000 },
  arm64: { audit: 0xc00000b7, unshare: 97, clone: 220, clone3: 435 },
};

const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JEQ_K = 0x15;
const BPF_JMP_JGE_K = 0x35;
const BPF_JMP_JSET_K = 0x45;
const BPF_RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
const CLONE_NEWUSER = 0x10000000;
/** Offsets in `struct seccomp_data`: nr, arch, then args[0] (its low 32 bits on little-endian hosts). */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0 = 16;

type Instruction = [code: number, jt: number, jf: number, k: number];

/** The program for this host's architecture, or undefined where the syscall numbers are not known. */
export function userNamespaceSeccompFilter(arch: NodeJS.Architecture = process.arch): Buffer | undefined {
  const sys = ARCHES[arch];
  if (!sys) return undefined;
  // A jump skips that many instructions after its own; the tail is allow (9), EPERM (10), ENOSYS (11).
  const program: Instruction[] = [
    [BPF_LD_W_ABS, 0, 0, OFFSET_ARCH],
    [BPF_JMP_JEQ_K, 0, 9, sys.audit], // another ABI (i386 on x86_64): ENOSYS
    [BPF_LD_W_ABS, 0, 0, OFFSET_NR],
    [BPF_JMP_JGE_K, 7, 0, sys.x32Bit ?? 0xffffffff],
    // clone3 passes its flags in memory a filter cannot read: ENOSYS makes the C library fall back to clone.
    [BPF_JMP_JEQ_K, 6, 0, sys.clone3],
    [BPF_JMP_JEQ_K, 1, 0, sys.unshare],
    [BPF_JMP_JEQ_K, 0, 2, sys.clone],
    [BPF_LD_W_ABS, 0, 0, OFFSET_ARG0],
    [BPF_JMP_JSET_K, 1, 0, CLONE_NEWUSER],
    [BPF_RET_K, 0, 0, RET_ALLOW],
    [BPF_RET_K, 0, 0, RET_ERRNO | EPERM],
    [BPF_RET_K, 0, 0, RET_ERRNO | ENOSYS],
  ];
  const buffer = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], index) => {
    buffer.writeUInt16LE(code, index * 8);
    buffer.writeUInt8(jt, index * 8 + 2);
    buffer.writeUInt8(jf, index * 8 + 3);
    buffer.writeUInt32LE(k, index * 8 + 4);
  });
  return buffer;
}
