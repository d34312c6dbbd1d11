/**
 * The operator CLI, callable in-process: `runAdmin(argv)` answers the exit status and
 * writes one JSON object (or, with --table, a table) to `out`, and errors to `err`.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { migrate } from '../db/migrate';
import { openDatabase } from '../server';
import { startupProblem } from '../startupErrors';
import { AdminError } from './commands';
import { cliActor } from '../operators/audit';
import { ProblemError } from '../http/problem';
import { COMMANDS, findCommand, type CommandSpec, type Options } from './registry';
import { table } from './table';

export interface AdminIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env?: NodeJS.ProcessEnv;
}

const GROUPS = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]!))];

function optionUsage(o: CommandSpec['options'][number]): string {
  return o.required ? `--${o.name} ${o.value}` : `[--${o.name} ${o.value}]`;
}

export function commandUsage(c: CommandSpec): string {
  const width = Math.max(0, ...c.options.map((o) => `--${o.name} ${o.value}`.length));
  return [
    `usage: pnpm admin ${c.name} ${c.options.map(optionUsage).join(' ')}`.trimEnd(),
    '',
    `  ${c.summary}; prints ${c.prints}`,
    ...(c.options.length
      ? [
          '',
          ...c.options.map(
            (o) =>
              `  ${`--${o.name} ${o.value}`.padEnd(width)}  ${o.help}${o.required ? '' : ' (optional)'}`,
          ),
        ]
      : []),
    `  ${'--table'.padEnd(width)}  a table for people instead of JSON`,
  ].join('\n');
}

export function usage(group?: string): string {
  const shown = COMMANDS.filter((c) => !group || c.name.startsWith(group + ' '));
  const width = Math.max(...shown.map((c) => c.name.length));
  return [
    `usage: pnpm admin ${group ?? '<command>'} ${group ? '<command> ' : ''}[options]   (each prints one JSON object; --table for people)`,
    '',
    ...shown.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    `pnpm admin ${group ?? '<command>'}${group ? ' <command>' : ''} --help shows a command's options.`,
  ].join('\n');
}

/** Database errors an operator can cause, in words an operator can act on. */
function explain(error: unknown, databaseUrl: string | undefined): string {
  if (error instanceof AdminError) return error.message;
  if (error instanceof ProblemError) {
    const fields = error.errors?.map((e) => `${e.field} ${e.message}`).join('; ');
    return fields ? `${error.message} (${fields})` : error.message;
  }
  const startup = startupProblem(error, databaseUrl);
  if (startup) return startup;
  const pg = error as { code?: string; detail?: string };
  if (pg.code === '23505') return `already exists: ${pg.detail ?? 'a unique value is taken'}`;
  if (pg.code === '23514' || pg.code === '23502')
    return `not allowed: ${pg.detail ?? 'a value is out of range'}`;
  // Any other value the database refuses (class 22: out of range, malformed): never its
  // own words, which name types and not options.
  if (pg.code?.startsWith('22'))
    return 'not allowed: a value is out of range or malformed; see --help for what each option takes';
  return error instanceof Error ? error.message : String(error);
}

function parse(command: CommandSpec, args: string[]): { values: Options; table: boolean } {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      tokens: true,
      options: {
        ...Object.fromEntries(
          command.options.map((o) => [
            o.name,
            { type: 'string' as const, multiple: o.multiple === true },
          ]),
        ),
        table: { type: 'boolean' as const },
      },
    });
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /Unknown option '([^']+)'/.exec(message)?.[1];
    const missingValue = /Option '(--[\w-]+)/.exec(message)?.[1];
    const positional = /Unexpected argument '([^']+)'/.exec(message)?.[1];
    throw new AdminError(
      unknown
        ? `${command.name} has no option ${unknown}`
        : missingValue
          ? `${command.name}: ${missingValue} needs a value`
          : positional
            ? `${command.name}: unexpected "${positional}" (values go after their --option)`
            : `${command.name}: ${message}`,
    );
  }
  // An option takes one value unless it says `multiple`: `--name A --name B` would
  // otherwise keep B, silently.
  const single = new Set(command.options.filter((o) => o.multiple !== true).map((o) => o.name));
  single.add('table');
  const given = parsed.tokens.flatMap((t) =>
    t.kind === 'option' && single.has(t.name) ? [t.name] : [],
  );
  const repeated = [...new Set(given.filter((name, i) => given.indexOf(name) !== i))];
  if (repeated.length > 0) {
    throw new AdminError(
      `${command.name}: ${repeated.map((n) => `--${n}`).join(', ')} given more than once; give each option once`,
    );
  }
  const values = Object.fromEntries(
    Object.entries(parsed.values).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]),
  ) as Options & { table?: boolean };
  const missing = command.options.filter((o) => o.required && !values[o.name]);
  if (missing.length > 0) {
    throw new AdminError(
      `${command.name} needs ${missing.map((o) => `--${o.name} ${o.value} (${o.help})`).join(' and ')}`,
    );
  }
  const { table: asTable, ...rest } = values;
  return { values: rest, table: asTable === true };
}

export async function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  const env = io.env ?? process.env;
  const help = argv.includes('--help') || argv.includes('-h');
  const words = argv.slice(0, 2).filter((w) => !w.startsWith('-'));
  const command = words.length === 2 ? findCommand(words) : undefined;
  if (!command) {
    const group = GROUPS.includes(words[0] ?? '') ? words[0] : undefined;
    if (help && words.length <= 1) {
      io.out(usage(group) + '\n');
      return 0;
    }
    const what = words.length ? `unknown command "${words.join(' ')}"` : 'which command?';
    io.err(`error: ${what}\n\n${usage(group)}\n`);
    return 2;
  }
  if (help) {
    io.out(commandUsage(command) + '\n');
    return 0;
  }
  const databaseUrl = env.DATABASE_URL || undefined;
  try {
    const { values, table: asTable } = parse(command, argv.slice(2));
    const config = loadConfig(env);
    const { sql, embedded } = await openDatabase({ ...config, dbPoolSize: 2 });
    try {
      await migrate(sql);
      const result = await command.run(sql, values, cliActor(env), config);
      io.out((asTable ? table(result) : JSON.stringify(result)) + '\n');
      return 0;
    } finally {
      await sql.end({ timeout: 5 });
      await embedded?.stop();
    }
  } catch (error) {
    io.err(`error: ${explain(error, databaseUrl)}\n`);
    return 1;
  }
}
