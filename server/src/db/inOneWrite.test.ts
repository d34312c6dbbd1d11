import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../../test/databases';
import type { Sql } from './connect';
import { inOneWrite, inOrder, transaction } from './transaction';

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
/** An insert and a count in one write: all sent, then all answered. */
const ONE_WRITE = [
  'sent begin',
  'sent insert',
  'sent select',
  'sent commit',
  'answered insert',
  'answered count',
];
const answered =
  <T>(what: string) =>
  (answer: T) => (events.push(`answered ${what}`), answer);

describe('a transaction sent in one write', () => {
  it('sends its COMMIT before any of its statements is answered, and commits them', async () => {
    events.length = 0;
    const ids = await inOneWrite(sql, (tx) =>
      inOrder([
        tx`insert into notes values (1, 'one') returning id`.execute().then(answered('insert')),
        tx<{ n: string }[]>`select count(*)::text as n from notes`
          .execute()
          .then(answered('count')),
      ]),
    );
    expect(ids[1][0]!.n).toBe('1');
    expect(events).toEqual(ONE_WRITE);
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
      inOrder([
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

  it('once its statements are prepared on the connection, sends those with parameters in one write too', async () => {
    const insertAndCount = (id: number) =>
      inOneWrite(sql, (tx) =>
        inOrder([
          tx`insert into notes values (${id}, ${'p'}) returning id`
            .execute()
            .then(answered('insert')),
          tx`select count(*) as n from notes where id >= ${100}`.execute().then(answered('count')),
        ]),
      );
    // The first time on this connection each is described first: its own round trip.
    await insertAndCount(100);
    events.length = 0;
    await insertAndCount(101);
    expect(events).toEqual(ONE_WRITE);
  });

  it('throws the cause, not the "transaction is aborted" of the statements after it', async () => {
    // The deposit's shape: the failing statement's answer passes through more promises
    // than the read after it, whose 25P02 settles first. Ten times: `Promise.all` threw
    // the 25P02 in most of them.
    for (let i = 0; i < 10; i++) {
      const attempt = inOneWrite(sql, (tx) =>
        inOrder([
          tx`insert into notes values (${1}, ${'again'})`
            .execute()
            .then((rows) => rows)
            .then((rows) => rows.count),
          tx`select count(*) from notes`.execute(),
        ]),
      );
      await expect(attempt).rejects.toMatchObject({ code: '23505' });
    }
  });
});
