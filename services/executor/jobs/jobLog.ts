import { appendLog } from '../logFile.ts';

/**
 * Forja's own lines in an instance log (`forja: step start began`), so the live viewer shows the
 * job's progress beside what the ERP or the database tools wrote. The log is `file` below `root`
 * (FORJA_DATA_DIR), opened without following a link (logFile.ts).
 */
export function jobLog(root: string, file: string) {
  return async (line: string): Promise<void> => {
    appendLog(root, file, `${new Date().toISOString()} forja: ${line}\n`);
  };
}

export type JobLog = ReturnType<typeof jobLog>;
