import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Forja's own lines in an instance log (`forja: step start began`), so the live viewer shows the
 * job's progress beside what the ERP or the database tools wrote.
 */
export function jobLog(file: string) {
  let ready: Promise<unknown> | undefined;
  return async (line: string): Promise<void> => {
    ready ??= mkdir(dirname(file), { recursive: true });
    await ready;
    await appendFile(file, `${new Date().toISOString()} forja: ${line}\n`);
  };
}

export type JobLog = ReturnType<typeof jobLog>;
