import { runProcesses } from '#shared/platform/process.ts';
import { startProjectorProcess } from './projectorProcess.ts';

await runProcesses('forja projector', [startProjectorProcess]);
