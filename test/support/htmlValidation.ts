import { fileURLToPath } from 'node:url';
import { FileSystemConfigLoader, HtmlValidate } from 'html-validate';

/** The checkout's root, where `.htmlvalidate.cjs` is found as it would be for a file there. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const validator = new HtmlValidate(new FileSystemConfigLoader());

/** html-validate's findings on one served page (`name` only labels them), one line each. */
export async function htmlProblems(html: string, name: string): Promise<string[]> {
  const report = await validator.validateString(html, `${ROOT}${name.replace(/\W+/g, '-')}.html`);
  return report.results.flatMap((result) => result.messages.map((message) => `${message.ruleId} ${message.line}:${message.column} ${message.message} [${message.selector ?? ''}]`));
}
