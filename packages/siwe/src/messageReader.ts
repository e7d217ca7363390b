import { RESOURCE_PREFIX, RESOURCES_LINE } from './caip122Namespace.ts';
import type { SignInErrorClass } from './signInError.ts';

/** A line as an error shows it: JSON-quoted and cut at 60 characters, or "the end of the message". */
export function show(line: string | undefined): string {
  if (line === undefined) return 'the end of the message';
  return JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line);
}

/**
 * A message's lines and the one being read, for a parser that reads one part after another (each
 * part its own small function). Its errors carry the 1-based line they are about.
 */
export class MessageReader<T extends string, F extends string> {
  index = 0;

  constructor(
    readonly lines: readonly string[],
    private readonly Failure: SignInErrorClass<T | 'UNABLE_TO_PARSE', F | 'resources'>,
  ) {}

  /** The line being read; undefined past the end. */
  get line(): string | undefined {
    return this.lines[this.index];
  }

  /** Whether every line has been read. */
  get done(): boolean {
    return this.index >= this.lines.length;
  }

  /** The error for the line being read: `line <n>: <text>`. */
  fail(type: T | 'UNABLE_TO_PARSE', text: string, field: F | 'resources', received?: unknown): Error {
    return new this.Failure(type, `line ${this.index + 1}: ${text}`, { field, line: this.index + 1, received });
  }

  /** The value after `label` on the line being read, or an error naming what was expected there. */
  tagged(label: string, field: F): string {
    const line = this.line;
    if (line === undefined || !line.startsWith(label)) {
      throw this.fail('UNABLE_TO_PARSE', `expected "${label}…", found ${show(line)}`, field, line);
    }
    return line.slice(label.length);
  }

  /** The empty line that follows a statement (statements are one line); then the line after it. */
  endOfStatement(field: F): void {
    if (this.line !== '') {
      throw this.fail(
        'UNABLE_TO_PARSE',
        `expected an empty line after the statement, found ${show(this.line)} (statements are one line)`,
        field,
      );
    }
    this.index += 1;
  }

  /**
   * The `Resources:` block when the line being read opens it: every line after it is `- <URI>`,
   * each value checked by `check` (given its 1-based line). Undefined when there is none.
   */
  resources(check: (value: string, line: number) => string): string[] | undefined {
    if (this.line !== RESOURCES_LINE) return undefined;
    this.index += 1;
    const resources: string[] = [];
    while (!this.done) {
      const line = this.line as string;
      if (!line.startsWith(RESOURCE_PREFIX)) {
        throw this.fail('UNABLE_TO_PARSE', `expected a resource line "- <URI>", found ${show(line)}`, 'resources', line);
      }
      resources.push(check(line.slice(RESOURCE_PREFIX.length), this.index + 1));
      this.index += 1;
    }
    return resources;
  }
}
