/**
 * A classic-BPF seccomp program for `bwrap --seccomp`. Sandboxed commands may not:
 * - create user namespaces. A nested one would hand the command capabilities over fresh mount namespaces
 *   (tmpfs mounts outside every size limit) and the kernel attack surface that distributions keep from
 *   unprivileged users. (bubblewrap's own `--disable-userns` cannot be combined with `--uid` in a user
 *   namespace bubblewrap sets up without privileges.)
 * - give a file the setuid or setgid bit (chmod, or a create mode that carries it). The command runs as the
 *   sandbox's host uid; a setuid file it left in the workdir would run as that uid for anyone on the host who
 *   can reach it. With the bits refused, none is ever made.
 */

interface ArchSyscalls {
  /** AUDIT_ARCH_* of `seccomp_data.arch`. */
  audit: number;
  unshare: number;
  clone: number;
  clone3: number;
  /** Calls whose mode can never be read by a filter (it sits in memory): refused with ENOSYS. */
  opaque: number[];
  /** Calls taking a file mode, with the index of the argument that holds it. */
  modes: [nr: number, argument: number][];
  /** x32 system calls on x86_64 carry this bit; they are refused wholesale. */
  x32Bit?: number;
}

const OPENAT2 = 437;
const FCHMODAT2 = 452;

const ARCHES: Partial<Record<NodeJS.Architecture, ArchSyscalls>> = {
  x64: {
    audit: 0xc000003e,
    unshare: 272,
    clone: 56,
    clone3: 435,
    opaque: [OPENAT2],
    // open, creat, chmod, fchmod, mknod, openat, mknodat, fchmodat, fchmodat2
    modes: [
      [2, 2],
      [85, 1],
      [90, 1],
      [91, 1],
      [133, 1],
      [257, 3],
      [259, 2],
      [268, 2],
      [FCHMODAT2, 2],
    ],
    x32Bit: 0x40000000,
  },
  arm64: {
    audit: 0xc00000b7,
    unshare: 97,
    clone: 220,
    clone3: 435,
    opaque: [OPENAT2],
    // mknodat, fchmod, fchmodat, openat, fchmodat2
    modes: [
      [33, 2],
      [52, 1],
      [53, 2],
      [56, 3],
      [FCHMODAT2, 2],
    ],
  },
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
const S_ISUID_OR_S_ISGID = 0o6000;
/** Offsets in `struct seccomp_data`: nr, arch, then args[i] (its low 32 bits on little-endian hosts). */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const argumentOffset = (index: number) => 16 + 8 * index;

/** One instruction; a jump names the label it goes to when its test holds (`yes`) or fails (`no`). */
interface Step {
  code: number;
  k: number;
  yes?: string;
  no?: string;
  label?: string;
}

/** The program for this host's architecture, or undefined where the syscall numbers are not known. */
export function userNamespaceSeccompFilter(arch: NodeJS.Architecture = process.arch): Buffer | undefined {
  const sys = ARCHES[arch];
  if (!sys) return undefined;
  const argumentsChecked = [...new Set(sys.modes.map(([, argument]) => argument))];
  const jumpTo = (nr: number, label: string): Step => ({ code: BPF_JMP_JEQ_K, k: nr, yes: label });
  const steps: Step[] = [
    { code: BPF_LD_W_ABS, k: OFFSET_ARCH },
    // Another ABI (i386 on x86_64): ENOSYS.
    { code: BPF_JMP_JEQ_K, k: sys.audit, no: 'enosys' },
    { code: BPF_LD_W_ABS, k: OFFSET_NR },
    { code: BPF_JMP_JGE_K, k: sys.x32Bit ?? 0xffffffff, yes: 'enosys' },
    // clone3 passes its flags in memory a filter cannot read: ENOSYS makes the C library fall back to clone.
    jumpTo(sys.clone3, 'enosys'),
    ...sys.opaque.map((nr) => jumpTo(nr, 'enosys')),
    jumpTo(sys.unshare, 'flags'),
    jumpTo(sys.clone, 'flags'),
    ...sys.modes.map(([nr, argument]) => jumpTo(nr, `mode${argument}`)),
    { code: BPF_RET_K, k: RET_ALLOW },
    { label: 'flags', code: BPF_LD_W_ABS, k: argumentOffset(0) },
    { code: BPF_JMP_JSET_K, k: CLONE_NEWUSER, yes: 'eperm', no: 'allow' },
    ...argumentsChecked.flatMap((argument): Step[] => [
      { label: `mode${argument}`, code: BPF_LD_W_ABS, k: argumentOffset(argument) },
      { code: BPF_JMP_JSET_K, k: S_ISUID_OR_S_ISGID, yes: 'eperm', no: 'allow' },
    ]),
    { label: 'allow', code: BPF_RET_K, k: RET_ALLOW },
    { label: 'eperm', code: BPF_RET_K, k: RET_ERRNO | EPERM },
    { label: 'enosys', code: BPF_RET_K, k: RET_ERRNO | ENOSYS },
  ];
  return assemble(steps);
}

/** Resolves labels to the forward offsets BPF jumps take (instructions skipped after the jump itself). */
function assemble(steps: Step[]): Buffer {
  const at = new Map(steps.flatMap((step, index) => (step.label ? [[step.label, index] as const] : [])));
  const offset = (from: number, label: string | undefined): number => {
    if (label === undefined) return 0;
    const target = at.get(label);
    const skip = target === undefined ? -1 : target - from - 1;
    if (skip < 0 || skip > 255) throw new Error(`seccomp jump to ${label} out of range`);
    return skip;
  };
  const buffer = Buffer.alloc(steps.length * 8);
  steps.forEach((step, index) => {
    buffer.writeUInt16LE(step.code, index * 8);
    buffer.writeUInt8(offset(index, step.yes), index * 8 + 2);
    buffer.writeUInt8(offset(index, step.no), index * 8 + 3);
    buffer.writeUInt32LE(step.k, index * 8 + 4);
  });
  return buffer;
}
