import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { installDebianPackage } from './debianPackage.ts';

/** A command-line tool a process runs, and the Debian package that provides it. */
export interface RequiredTool {
  command: string;
  debianPackage: string;
}

export interface RequireToolOptions {
  /** Directories to search, PATH-style; the process's PATH when absent. */
  searchPath?: string;
  /** Installs a package or throws `hint`; replaceable so tests never run apt-get. */
  installPackage?: (name: string, hint: string) => void;
}

/** The executable `command` in the first directory of `searchPath` (PATH-style) that holds one. */
export function findOnPath(command: string, searchPath = process.env['PATH'] ?? ''): string | undefined {
  for (const dir of searchPath.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/**
 * The path of `tool.command` on PATH, installing its Debian package first when it is missing (as
 * root only, like PostgreSQL and nats-server). Anyone else gets one line naming the package: a
 * process calls this at start-up so a missing tool stops it there, not halfway through the job
 * that needs the tool.
 */
export function requireTool(tool: RequiredTool, options: RequireToolOptions = {}): string {
  const found = findOnPath(tool.command, options.searchPath);
  if (found !== undefined) return found;
  (options.installPackage ?? installDebianPackage)(tool.debianPackage, `${tool.command} is missing: install the Debian package ${tool.debianPackage}`);
  const installed = findOnPath(tool.command, options.searchPath);
  if (installed === undefined) throw new Error(`${tool.command} is missing: the Debian package ${tool.debianPackage} is installed but puts no ${tool.command} on PATH`);
  return installed;
}
