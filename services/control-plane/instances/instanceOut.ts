import type { ReadModel } from '#projections/readModel.ts';
import { getInstance, isBehind, type InstanceDetailRow } from '#projections/instances/instanceDetail.ts';
import { jobStepsOf } from '#projections/instances/instanceJobSteps.ts';
import type { InstanceListRow } from '#projections/instances/instanceList.ts';
import { HttpError } from '#shared/http/errors.ts';

/** The read models a command on instances waits for before answering. */
export const INSTANCE_READ_MODELS = ['instance_list', 'instance_detail', 'instance_job_steps'] as const;

/** InstanceOut of a list row (schemas/api/InstanceOut.v1.json). */
export function instanceOut(row: InstanceListRow) {
  return {
    slug: row.slug,
    name: row.name,
    project: row.project,
    stage: row.stage,
    erp_version: row.erp_version,
    edition: row.edition,
    modules: row.modules,
    git_repo: row.git_repo,
    branch: row.branch,
    status: row.status,
    url: row.url,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    last_error: row.last_error,
  };
}

/** InstanceOut with the detail fields: where it runs, the commit against its branch head, and the current job's steps. */
export async function instanceDetailOut(readModel: ReadModel, row: InstanceDetailRow) {
  const steps = await jobStepsOf(readModel, row.job_id);
  return {
    ...instanceOut(row),
    runtime: row.runtime,
    standin: row.standin,
    commit: row.commit,
    branch_head: row.branch_head,
    behind: isBehind(row),
    rebuild_pending: row.rebuild_pending,
    port: row.port,
    demo_data: row.demo_data,
    neutralization: row.neutralization,
    job: {
      id: row.job_id,
      kind: row.job_kind,
      active: row.job_active,
      steps: steps.map((step) => ({ step: step.step, state: step.state, attempts: step.attempts, duration_ms: step.duration_ms, error: step.error })),
    },
  };
}

export async function instanceOr404(readModel: ReadModel, slug: string): Promise<InstanceDetailRow> {
  const row = await getInstance(readModel, slug);
  if (!row) throw new HttpError(404, `no instance ${slug}`);
  return row;
}
