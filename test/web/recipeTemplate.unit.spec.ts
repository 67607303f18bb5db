import { expect } from 'chai';
import { checkRecipeText } from '#services/migrations/recipes/recipeText.ts';
import { recipeTemplate } from '#web/recipes/recipeTemplate.ts';
import { refusalFindings } from '#web/recipes/recipeFindings.ts';
import { CommandRefused } from '#web/controlPlaneClient.ts';

describe('web: the new-recipe template and the editor’s reading of refusals', () => {
  for (const flavor of ['community', 'enterprise'] as const) {
    it(`starts a ${flavor} recipe that lints without errors`, () => {
      const checked = checkRecipeText(flavor, '18.0-19.0', recipeTemplate(flavor, '18.0', '19.0'));
      expect(checked.errors).to.deep.equal([]);
      expect(checked.recipe?.steps.map((step) => step.kind)).to.include.members(['fetch', 'restore', 'backup', 'dump', 'report']);
    });
  }

  it('puts lint errors on their lines and field refusals on their fields', () => {
    const refusal = new CommandRefused(422, [
      { loc: ['body', 'yaml', 7, 3], msg: '/steps/2/kind: must be one of: check, sql', type: 'value_error.recipe' },
      { loc: ['body', 'yaml', 1], msg: 'Nested mappings are not allowed: here', type: 'value_error.recipe' },
      { loc: ['body', 'stem'], msg: 'the stem is wrong', type: 'value_error.domain' },
      { loc: ['body'], msg: 'something else', type: 'value_error.domain' },
    ]);
    expect(refusalFindings(refusal)).to.deep.equal({
      findings: [
        { level: 'error', line: 7, column: 3, path: '/steps/2/kind', message: 'must be one of: check, sql' },
        { level: 'error', line: 1, column: null, path: '/', message: 'Nested mappings are not allowed: here' },
      ],
      errors: { stem: 'the stem is wrong', _form: 'something else' },
    });
    expect(refusalFindings(new CommandRefused(409, 'taken'))).to.deep.equal({ findings: [], errors: { _form: 'taken' } });
  });
});
