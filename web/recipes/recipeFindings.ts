import type { RecipeProblem } from '#services/migrations/recipes/recipe.ts';
import { checkRecipeText, RECIPE_KEY, type RecipeFile } from '#services/migrations/recipes/recipeText.ts';
import type { CommandRefused } from '../controlPlaneClient.ts';

/** A finding as the editor shows it: where (line and column, or the field), and what. */
export interface EditorFinding {
  level: 'error' | 'warning';
  line: number | null;
  column: number | null;
  path: string;
  message: string;
}

export const editorFinding = (problem: RecipeProblem): EditorFinding => ({
  level: problem.level,
  line: problem.line ?? null,
  column: problem.column ?? null,
  path: problem.path,
  message: problem.message,
});

/** The recipe's key from the form: the hidden `key` when editing, else flavor and stem; null when they make no key. */
export function formKey(fields: { key?: string; flavor?: string; stem?: string }): { key: string; flavor: string; stem: string } | null {
  const key = fields.key ? fields.key : `${fields.flavor ?? ''}.${fields.stem ?? ''}`;
  const parts = RECIPE_KEY.exec(key);
  return parts ? { key, flavor: parts[1] ?? '', stem: parts[2] ?? '' } : null;
}

/** The text linted as the recipe `key` would store it (what validate shows, and what save will find). */
export function lintAs(key: { flavor: string; stem: string }, text: string): RecipeFile {
  return checkRecipeText(key.flavor, key.stem, text);
}

/**
 * The control-plane's refusal of a save, for the editor: lint errors (`loc: [body, yaml, line,
 * column]`) become findings on their lines; a refused field (`flavor`, `stem`, `key`) its message;
 * anything else a message for the whole form.
 */
export function refusalFindings(refusal: CommandRefused): { findings: EditorFinding[]; errors: Record<string, string> } {
  if (typeof refusal.detail === 'string') return { findings: [], errors: { _form: refusal.detail } };
  const findings: EditorFinding[] = [];
  const errors: Record<string, string> = {};
  for (const issue of refusal.detail) {
    const [, field, line, column] = issue.loc;
    if (field === 'yaml') {
      const [path, ...rest] = issue.msg.startsWith('/') ? issue.msg.split(': ') : ['/', issue.msg];
      findings.push({ level: 'error', line: typeof line === 'number' ? line : null, column: typeof column === 'number' ? column : null, path: path ?? '/', message: rest.length ? rest.join(': ') : issue.msg });
    } else {
      const name = typeof field === 'string' && ['flavor', 'stem', 'key'].includes(field) ? field : '_form';
      errors[name] = errors[name] ? `${errors[name]}; ${issue.msg}` : issue.msg;
    }
  }
  return { findings, errors };
}
