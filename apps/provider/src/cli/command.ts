/**
 * What every `signet` command is made of: its description (usage, options, the check of its
 * command line) and what it is given to run (settings, storage, the audit stream, output), with
 * the output helpers the commands share. The command groups (clients.ts, keys.ts, storage.ts)
 * import this; cli.ts at the source root assembles them and runs one.
 */
import { userInfo } from 'node:os';
import type { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import type { AuditLog } from '../observability/audit.ts';
import type { Store } from '../storage/index.ts';

export type Out = (line: string) => void;

export const JSON_OPTION = { json: { type: 'boolean', default: false } } as const;

export type Command = {
  usage: string;
  summary: string;
  /** Reads only: on a SQLite file that does not exist yet, answers without creating it. */
  readOnly?: boolean;
  /** Opens the storages it needs itself (storage.ts): none is opened for it. */
  ownStorage?: boolean;
  options: NonNullable<Parameters<typeof parseArgs>[0]>['options'];
  positionals?: boolean;
  /** Checks the command line before settings or storage are touched. */
  check?(values: CommandContext['values'], positionals: string[]): void;
  run(context: CommandContext): Promise<void>;
};

export type CommandContext = {
  config: Config;
  /** Audit events of changes made from the command line (AUDIT_LOG), actor "cli". */
  audit: AuditLog;
  /** Undefined when a read-only command finds no storage yet. */
  store: Store | undefined;
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  out: Out;
};

/** A command that ran and failed for a reason a person can act on: its words, exit status 1, no stack trace. */
export class CommandFailed extends Error {}

export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super(message);
  }
}

/** Left-aligned columns with a header row; an empty list says so in words. */
export function formatTable(rows: Record<string, unknown>[], columns: [key: string, title: string][], empty: string): string {
  if (rows.length === 0) return empty;
  const cell = (value: unknown) =>
    value === undefined || value === null ? '-' : Array.isArray(value) ? value.join(' ') : String(value);
  const body = rows.map((row) => columns.map(([key]) => cell(row[key])));
  const widths = columns.map(([, title], i) => Math.max(title.length, ...body.map((cells) => (cells[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(columns.map(([, title]) => title)), ...body.map(line)].join('\n');
}

export function formatPairs(pairs: [string, unknown][]): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k.padEnd(width)}  ${Array.isArray(v) ? v.join(' ') : String(v)}`)
    .join('\n');
}

/** Who ran the command, as the operating system knows them. */
export const osUser = () => {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
};

export const print = (out: Out, json: boolean, data: unknown, text: () => string) =>
  out(json ? JSON.stringify(data, null, 2) : text());
