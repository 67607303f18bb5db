import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { webhookToken, webhookTokenMatches } from '#shared/auth/webhookToken.ts';

describe('control-plane: comparing push hook tokens', () => {
  const secret = 'a secret';
  const right = webhookToken(secret, 'acme', 'nonce');

  it('accepts the project’s token and refuses another project’s', () => {
    expect(webhookTokenMatches(secret, 'acme', 'nonce', right)).to.equal(true);
    expect(webhookTokenMatches(secret, 'other', 'nonce', right)).to.equal(false);
  });

  it('refuses, without throwing, tokens whose characters and bytes differ in number (issue 10, item 3)', () => {
    for (const presented of ['é'.repeat(right.length), 'é'.repeat(right.length / 2), right.slice(1), `${right}0`, '']) {
      expect(() => webhookTokenMatches(secret, 'acme', 'nonce', presented), presented).to.not.throw();
      expect(webhookTokenMatches(secret, 'acme', 'nonce', presented), presented).to.equal(false);
    }
  });

  it('changes with the project’s nonce: a rotated or recreated project refuses its old token (issue 10, item 18)', () => {
    expect(webhookTokenMatches(secret, 'acme', 'rotated', right)).to.equal(false);
    expect(webhookToken(secret, 'acme', 'rotated')).to.match(/^[0-9a-f]{64}$/).and.not.equal(right);
  });

  it('keeps the slug-only token of a project created before nonces, until it is rotated', () => {
    expect(webhookToken(secret, 'acme', null)).to.equal(createHmac('sha256', secret).update('acme').digest('hex'));
    expect(webhookTokenMatches(secret, 'acme', 'nonce', webhookToken(secret, 'acme', null))).to.equal(false);
  });
});
