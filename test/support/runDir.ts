import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTeardown } from './teardown.ts';

/**
 * A fresh folder for one test run's private service (PostgreSQL, nats-server), removed at the
 * end: two runs in the same checkout never share one. World-traversable because, as root,
 * PostgreSQL runs as the `postgres` user.
 */
export function runDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `forja-${name}-`));
  chmodSync(dir, 0o755);
  onTeardown(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
