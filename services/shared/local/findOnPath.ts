import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

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
