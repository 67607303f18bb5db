import { codeEditorTool } from './codeEditor.tool.ts';
import type { InstanceToolSpec } from './instanceToolSpec.ts';
import { notebookTool } from './notebook.tool.ts';

/** The tools every instance has, each at /instances/{slug}/{kind}/proxy/. */
export const instanceToolSpecs: InstanceToolSpec[] = [
  notebookTool,
  codeEditorTool,
];
