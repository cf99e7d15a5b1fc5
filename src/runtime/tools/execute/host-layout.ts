import { lstatSync, readlinkSync } from 'node:fs';

/** What of the host's root the sandbox reproduces: top-level links such as /bin → usr/bin, and real dirs. */
export interface HostLayout {
  links: { path: string; target: string }[];
  dirs: string[];
  /** /etc entries bound read-only (when they exist). */
  etc: string[];
}

const ROOT_ENTRIES = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * The few /etc entries programs need (dynamic linker, alternatives, time zone, name resolution, CA
 * certificates). Never /etc as a whole: shadow files, SSH host keys and /etc/ssl/private stay out.
 */
const ETC_ENTRIES = [
  'alternatives',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'timezone',
  'nsswitch.conf',
  'host.conf',
  'hosts',
  'resolv.conf',
  'gai.conf',
  'protocols',
  'services',
  'ssl/certs',
  'ssl/openssl.cnf',
  'ca-certificates',
  'ca-certificates.conf',
  'mime.types',
  'os-release',
  'debian_version',
  'bash.bashrc',
  'inputrc',
  'gitconfig',
];

/** Read once per sandbox: the host's root does not change while the server runs. */
export function readHostLayout(): HostLayout {
  const links: HostLayout['links'] = [];
  const dirs: string[] = [];
  for (const entry of ROOT_ENTRIES) {
    try {
      const stat = lstatSync(entry);
      if (stat.isSymbolicLink()) links.push({ path: entry, target: readlinkSync(entry) });
      else if (stat.isDirectory()) dirs.push(entry);
    } catch {
      // Absent on this host (e.g. /libx32): nothing to reproduce.
    }
  }
  return { links, dirs, etc: ETC_ENTRIES.map((entry) => `/etc/${entry}`) };
}
