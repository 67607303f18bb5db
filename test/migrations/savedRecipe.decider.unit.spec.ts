import { expect } from 'chai';
import { DomainError, foldEvents } from '#shared/decider/decider.ts';
import { describeErrors, schemaValidator } from '#shared/schemaValidator.ts';
import { RecipeLintError, savedRecipeDecider } from '#services/migrations/domain/savedRecipe.decider.ts';
import type { SavedRecipeEvent, SavedRecipeVersion } from '#services/migrations/domain/savedRecipe.ts';
import { deciderSpec } from '#test/support/deciderSpec.ts';

const version = (text: string, extra: Partial<SavedRecipeVersion> = {}): Omit<SavedRecipeVersion, 'origin'> => ({
  key: 'community.16.0-17.0',
  flavor: 'community',
  stem: '16.0-17.0',
  text,
  sha256: text.padEnd(64, '0').slice(0, 64),
  errors: [],
  warnings: [],
  ...extra,
});
const shipped: SavedRecipeEvent = { type: 'RecipeSaved', data: { ...version('aaaa'), origin: 'shipped' } };
const spec = deciderSpec(savedRecipeDecider);

describe('savedRecipe decider', () => {
  it('seeds the shipped file when the recipe was never saved', () => {
    spec.given([]).when({ type: 'SeedRecipe', recipe: version('aaaa') }).then([shipped]);
  });

  it('never seeds over a saved recipe: an edit survives start-ups, and a changed shipped file is not applied over it', () => {
    const edited: SavedRecipeEvent = { type: 'RecipeSaved', data: { ...version('bbbb'), origin: 'edited' } };
    spec.given([shipped, edited]).when({ type: 'SeedRecipe', recipe: version('cccc') }).thenNothingHappens();
  });

  it('keeps a broken shipped file, with its findings, so the list can show it', () => {
    const broken = version('dddd', { errors: [{ level: 'error', path: '/steps', line: 3, column: 1, message: 'no fetch step' }] });
    spec.given([]).when({ type: 'SeedRecipe', recipe: broken }).then([{ type: 'RecipeSaved', data: { ...broken, origin: 'shipped' } }]);
  });

  it('saves an edit as the next version, and records nothing for the same text', () => {
    spec.given([shipped]).when({ type: 'SaveRecipe', recipe: version('bbbb'), create: false }).then([{ type: 'RecipeSaved', data: { ...version('bbbb'), origin: 'edited' } }]);
    spec.given([shipped]).when({ type: 'SaveRecipe', recipe: version('aaaa'), create: false }).thenNothingHappens();
    const state = foldEvents(savedRecipeDecider, [shipped, { type: 'RecipeSaved', data: { ...version('bbbb'), origin: 'edited' } }]);
    expect(state).to.include({ status: 'saved', version: 2, text: 'bbbb', origin: 'edited' });
  });

  it('refuses a save with lint errors, naming the first one with its line and column', () => {
    const broken = version('eeee', { errors: [{ level: 'error', path: '/route', line: 7, column: 3, message: 'not a hop' }] });
    spec.given([shipped]).when({ type: 'SaveRecipe', recipe: broken, create: false }).thenThrows(RecipeLintError, /line 7, column 3\): not a hop/);
  });

  it('refuses to create a recipe that exists, and to edit one that does not', () => {
    spec.given([shipped]).when({ type: 'SaveRecipe', recipe: version('bbbb'), create: true }).thenThrows(DomainError, /exists already/);
    spec.given([]).when({ type: 'SaveRecipe', recipe: version('bbbb'), create: false }).thenThrows(DomainError, /no recipe community.16.0-17.0/);
  });

  it('RecipeSaved matches schemas/events/RecipeSaved.v1.json', () => {
    const validate = schemaValidator('events/RecipeSaved.v1.json');
    const data = { ...version('ffff', { sha256: 'f'.repeat(64), warnings: [{ level: 'warning' as const, path: '/', line: 1, column: 1, message: 'w' }] }), origin: 'edited' };
    expect(validate(data), describeErrors(validate)).to.equal(true);
  });
});
