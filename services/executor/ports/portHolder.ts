import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Who listens on a TCP port of this machine, for the error that says an instance's port is taken:
 * the listening socket's inode from /proc/net/tcp{,6}, then the process holding that socket among
 * /proc/<pid>/fd. Linux only, and only processes this user may inspect (all of them as root);
 * null when it cannot tell.
 */
export function portHolder(port: number): string | null {
  const inode = listeningInode(port);
  if (inode === null) return null;
  const target = `socket:[${inode}]`;
  for (const pid of numericEntries('/proc')) {
    for (const fd of numericEntries(`/proc/${pid}/fd`)) {
      if (readLink(`/proc/${pid}/fd/${fd}`) !== target) continue;
      const command = readText(`/proc/${pid}/cmdline`)?.split('\0').filter(Boolean).join(' ');
      return `pid ${pid}${command ? ` (${command.slice(0, 160)})` : ''}`;
    }
  }
  return null;
}

/** The inode of a socket listening (state 0A) on `port`, from the kernel's socket tables. */
function listeningInode(port: number): string | null {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of (readText(table) ?? '').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      if (fields[3] === '0A' && local?.endsWith(`:${hexPort}`) && fields[9] && fields[9] !== '0') return fields[9];
    }
  }
  return null;
}

function numericEntries(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
}

function readLink(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
