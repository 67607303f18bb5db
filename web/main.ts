import { runProcesses } from '#shared/platform/process.ts';
import { startWebProcess } from './webProcess.ts';

await runProcesses('forja web', [startWebProcess]);
