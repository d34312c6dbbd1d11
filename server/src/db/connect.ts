import postgres from 'postgres';

export type Sql = postgres.Sql;
export type TransactionSql = postgres.TransactionSql;

export interface ConnectOptions {
  max?: number;
  /** For writes of soft state whose last milliseconds may be lost in a crash. */
  asynchronousCommit?: boolean;
}

/** The one postgres.js client of a process. Timestamps come back as `Date`. */
export function connect(url: string, options: ConnectOptions = {}): Sql {
  return postgres(url, {
    max: options.max ?? 20,
    onnotice: () => {},
    connection: {
      application_name: 'parcel-locker',
      ...(options.asynchronousCommit ? { synchronous_commit: 'off' } : {}),
    },
  });
}
