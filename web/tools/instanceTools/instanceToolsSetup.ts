import { getInstance } from '#projections/instances/instanceDetail.ts';
import { durationMs } from '#shared/config/duration.ts';
import { ensureSystemUser, type SystemUser } from '#shared/local/systemUser.ts';
import type { WebContext } from '../../context.ts';
import type { WebTool } from '../webTools.ts';
import { instanceToolSpecs } from './instanceTools.ts';
import type { InstanceToolSpec } from './instanceToolSpec.ts';
import { instanceWebTools } from './instanceWebTools.ts';
import { toolSupervisor, type ToolSupervisor } from './toolSupervisor.ts';

/** The account instances' code runs as (the executor's ERP_OS_USER): tools run the instance's code too. */
export const TOOL_OS_USER = 'forja-erp';

/** Never root: as root, tools run as `forja-erp` (created when missing); otherwise as web's own unprivileged user. */
export function toolAccount(): SystemUser | null {
  return process.getuid?.() === 0 ? ensureSystemUser(TOOL_OS_USER) : null;
}

export interface InstanceTools {
  tools: WebTool[];
  supervisor: ToolSupervisor;
}

/** Web's per-instance tools (notebook and code editors) and the supervisor that starts and stops them. */
export function instanceTools(ctx: WebContext, dataDir: string, specs: InstanceToolSpec[] = instanceToolSpecs): InstanceTools {
  const instanceExists = async (slug: string) => ((await getInstance(ctx.readModel, slug))?.status ?? 'destroyed') !== 'destroyed';
  const supervisor = toolSupervisor({ dataDir, idleMs: durationMs(ctx.settings.FORJA_TOOL_IDLE), logger: ctx.logger, account: toolAccount, instanceExists });
  return { tools: instanceWebTools(ctx, supervisor, specs), supervisor };
}
