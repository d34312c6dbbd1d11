import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../../test/databases';
import type { Sql } from './connect';
import { inOneWrite, transaction } from './transaction';

// `inOneWrite` (issue 28): BEGIN, a transaction's statements and its COMMIT sent without
// waiting for an answer in between. What is sent and when it is answered is recorded in
// order: postgres.js calls `debug` as it writes each query.
let url: string;
let sql: Sql;
const events: string[] = [];
beforeAll(async () => {
  url = await freshDatabaseUrl();
  sql = postgres(url, {
    max: 1,
    onnotice: () => {},
    debug: (_, query) => events.push(`sent ${firstWord(query)}`),
  });
  await sql`create table notes (id int primary key, text text not null)`;
});
afterAll(() => sql?.end());

const firstWord = (query: string) => query.trim().split(/\s/)[0]!.toLowerCase();
const answered =
  <T>(what: string) =>
  (answer: T) => (events.push(`answered ${what}`), answer);

describe('a transaction sent in one write', () => {
  it('sends its COMMIT before any of its statements is answered, and commits them', async () => {
    events.length = 0;
    const ids = await inOneWrite(sql, (tx) =>
      Promise.all([
        tx`insert into notes values (1, 'one') returning id`.execute().then(answered('insert')),
        tx<{ n: string }[]>`select count(*)::text as n from notes`
          .execute()
          .then(answered('count')),
      ]),
    );
    expect(ids[1][0]!.n).toBe('1');
    expect(events).toEqual([
      'sent begin',
      'sent insert',
      'sent select',
      'sent commit',
      'answered insert',
      'answered count',
    ]);
    expect(await sql`select text from notes where id = 1`).toEqual([{ text: 'one' }]);

    // `transaction` waits for its work's answers, then commits: one round trip more.
    events.length = 0;
    await transaction(sql, (tx) =>
      tx`insert into notes values (2, 'two')`.execute().then(answered('insert')),
    );
    expect(events).toEqual(['sent begin', 'sent insert', 'answered insert', 'sent commit']);
  });

  it('throws a failing statement’s error, and commits nothing of what came before it', async () => {
    const attempt = inOneWrite(sql, (tx) =>
      Promise.all([
        tx`insert into notes values (10, 'ten')`.execute(),
        // The primary key: id 1 is taken.
        tx`insert into notes values (1, 'again')`.execute(),
        tx`insert into notes values (11, 'eleven')`.execute(),
      ]),
    );
    await expect(attempt).rejects.toMatchObject({ code: '23505' });
    expect(await sql`select id from notes where id in (10, 11)`).toEqual([]);
    // The connection is out of the transaction again, and in use.
    await sql`insert into notes values (12, 'twelve')`;
    expect(await sql`select id from notes where id = 12`).toEqual([{ id: 12 }]);
  });
});
