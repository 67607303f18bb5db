import { runProcesses } from '#shared/platform/process.ts';
import { startControlPlaneProcess } from './controlPlaneProcess.ts';
import { startFirstAdminBootstrap } from './identity/firstAdmin.ts';

await runProcesses('forja control-plane', [startControlPlaneProcess, startFirstAdminBootstrap]);
