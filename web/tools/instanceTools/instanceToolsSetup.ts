import { getInstance } from '#projections/instances/instanceDetail.ts';
import { durationMs } from '#shared/config/duration.ts';
import type { SystemUser } from '#shared/local/systemUser.ts';
import { DEFAULT_UID_RANGE, tenantAccount, type UidRange } from '#shared/local/tenantAccount.ts';
import type { WebContext } from '../../context.ts';
import type { WebTool } from '../webTools.ts';
import { instanceToolSpecs } from './instanceTools.ts';
import type { InstanceToolSpec } from './instanceToolSpec.ts';
import { instanceWebTools } from './instanceWebTools.ts';
import { toolSupervisor, type ToolSupervisor } from './toolSupervisor.ts';

/**
 * Never root, never shared: as root, an instance's tools run as the instance's own account
 * (fi-<slug>, as its ERP does, made when missing); otherwise as web's own unprivileged user.
 */
export function toolAccount(slug: string, range: UidRange = DEFAULT_UID_RANGE): SystemUser | null {
  return tenantAccount('instance', slug, range);
}

export interface InstanceTools {
  tools: WebTool[];
  supervisor: ToolSupervisor;
}

/** Web's per-instance tools (notebook and code editors) and the supervisor that starts and stops them. */
export function instanceTools(ctx: WebContext, dataDir: string, specs: InstanceToolSpec[] = instanceToolSpecs, uidRange: UidRange = DEFAULT_UID_RANGE): InstanceTools {
  const instanceExists = async (slug: string) => ((await getInstance(ctx.readModel, slug))?.status ?? 'destroyed') !== 'destroyed';
  const supervisor = toolSupervisor({ dataDir, idleMs: durationMs(ctx.settings.FORJA_TOOL_IDLE), logger: ctx.logger, account: (slug) => toolAccount(slug, uidRange), instanceExists });
  return { tools: instanceWebTools(ctx, supervisor, specs), supervisor };
}
