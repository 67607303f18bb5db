import type { JSONColumnType } from 'kysely';
import type { InstanceStatus } from '#services/instances/domain/instance.ts';

/** The InstanceOut columns both the list and the detail keep. */
export interface InstanceOutColumns {
  slug: string;
  name: string;
  project: string;
  stage: string;
  erp_version: string;
  edition: string;
  /** jsonb: written as a JSON string, read back as the array. */
  modules: JSONColumnType<string[]>;
  git_repo: string | null;
  branch: string;
  status: InstanceStatus;
  url: string | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The instance list: filters by stage, status, version, project and branch; name search; pages. */
export type InstanceListTable = InstanceOutColumns;

export interface InstanceListDb {
  instance_list: InstanceListTable;
}
