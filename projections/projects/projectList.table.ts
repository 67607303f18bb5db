/** The project list, searchable by name. */
export interface ProjectListTable {
  slug: string;
  name: string;
  git_repo: string | null;
  /** The push hook token's nonce (services/projects/domain/project.ts); null for a project older than nonces, until rotated. */
  webhook_nonce: string | null;
  created_at: Date;
}

export interface ProjectListDb {
  project_list: ProjectListTable;
}
