/**
 * A JSON Schema over environment variables: flat properties, each with a `description`.
 * `isPath: true` marks a file or folder setting: the loader resolves it to an absolute path once,
 * so no process ever sees a relative one (git, pg_ctl and child processes each run in folders of
 * their own, where a relative path means something else).
 */
export interface SettingsSchema {
  type: 'object';
  additionalProperties: false;
  properties: Record<string, { description?: string; isPath?: boolean } & Record<string, unknown>>;
  required: readonly string[];
}
