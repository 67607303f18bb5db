import { expect } from 'chai';
import { webhookToken, webhookTokenMatches } from '#shared/auth/webhookToken.ts';

describe('control-plane: comparing push hook tokens', () => {
  const secret = 'a secret';
  const right = webhookToken(secret, 'acme');

  it('accepts the project’s token and refuses another project’s', () => {
    expect(webhookTokenMatches(secret, 'acme', right)).to.equal(true);
    expect(webhookTokenMatches(secret, 'other', right)).to.equal(false);
  });

  it('refuses, without throwing, tokens whose characters and bytes differ in number (issue 10, item 3)', () => {
    for (const presented of ['é'.repeat(right.length), 'é'.repeat(right.length / 2), right.slice(1), `${right}0`, '']) {
      expect(() => webhookTokenMatches(secret, 'acme', presented), presented).to.not.throw();
      expect(webhookTokenMatches(secret, 'acme', presented), presented).to.equal(false);
    }
  });
});
