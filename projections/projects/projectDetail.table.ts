/** One project's page: what it is, who created and last changed it. */
export interface ProjectDetailTable {
  slug: string;
  name: string;
  git_repo: string | null;
  /** The push hook token's nonce (services/projects/domain/project.ts); null for a project older than nonces, until rotated. */
  webhook_nonce: string | null;
  created_at: Date;
  created_by: string;
  updated_at: Date;
  updated_by: string;
}

export interface ProjectDetailDb {
  project_detail: ProjectDetailTable;
}
