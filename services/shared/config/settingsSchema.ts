/** A JSON Schema over environment variables: flat properties, each with a `description`. */
export interface SettingsSchema {
  type: 'object';
  additionalProperties: false;
  properties: Record<string, { description?: string } & Record<string, unknown>>;
  required: readonly string[];
}
