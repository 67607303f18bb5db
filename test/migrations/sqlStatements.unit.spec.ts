import { expect } from 'chai';
import { statementCount } from '#services/migrations/recipes/sqlStatements.ts';

describe('recipes: counting the statements of a check (statementCount)', () => {
  it('counts one statement, with or without its semicolon, comments and blank lines around it', () => {
    for (const sql of ['select 1', 'select 1;', '  select 1 ;  \n', '-- why\nselect 1 -- and how\n;', '/* a /* nested */ comment */ select 1; /* after */']) {
      expect(statementCount(sql), JSON.stringify(sql)).to.equal(1);
    }
  });

  it('counts the statements a semicolon separates', () => {
    expect(statementCount('commit; create table pwned()')).to.equal(2);
    expect(statementCount('select 1;select 2;')).to.equal(2);
    expect(statementCount('select 1; ; select 2; -- x\n select 3')).to.equal(3);
  });

  it('ignores semicolons in strings, quoted names, comments and dollar quotes', () => {
    expect(statementCount(`select 'a;b', 'it''s; fine', E'\\'; still', "odd;name" from t`)).to.equal(1);
    expect(statementCount('select 1 -- ; not a statement\n')).to.equal(1);
    expect(statementCount('select 1 /* ; /* ; */ ; */')).to.equal(1);
    expect(statementCount('do $$ begin commit; create table x(); end $$')).to.equal(1);
    expect(statementCount('select $body$ ; $inner$ ; $body$, $1 from t where a$b = 1')).to.equal(1);
    expect(statementCount(`select '\${hop.destination}.%'; select 2`)).to.equal(2);
  });

  it('finds none in nothing but whitespace and comments', () => {
    expect(statementCount('')).to.equal(0);
    expect(statementCount(' ; -- nothing\n /* at all */ ;')).to.equal(0);
  });
});
