import { runProcesses } from '#shared/platform/process.ts';
import { startExecutorProcess } from './executorProcess.ts';

/** The executor alone: `npm run executor`. */
await runProcesses('forja executor', [startExecutorProcess]);
