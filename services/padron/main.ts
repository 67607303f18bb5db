import { runProcesses } from '#shared/platform/process.ts';
import { startPadronProcess } from './padronProcess.ts';

await runProcesses('forja padron', [startPadronProcess]);
