import { cpus, totalmem } from 'node:os';

export type Check = { name: string; value: number; display: string; target: string; pass: boolean };
export type Section = {
  title: string;
  table: { head: string[]; rows: string[][] };
  checks: Check[];
  notes?: string[];
};

const markdownTable = (head: string[], rows: string[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

export function machine(): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return `Node ${process.version}, ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`;
}

export function toMarkdown(sections: Section[], date: Date): string {
  const parts = [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (do not edit by hand). Figures vary from machine to machine;',
    'the ratios are what the targets are about, since every row of a table runs in the same process.',
    '',
    `Last run: ${date.toISOString()} on ${machine()}.`,
  ];
  for (const section of sections) {
    parts.push('', `## ${section.title}`, '', markdownTable(section.table.head, section.table.rows));
    if (section.checks.length > 0) {
      parts.push(
        '',
        markdownTable(
          ['target', 'measured', 'goal', 'met'],
          section.checks.map((c) => [c.name, c.display, c.target, c.pass ? 'yes' : '**no**']),
        ),
      );
    }
    for (const note of section.notes ?? []) parts.push('', note);
  }
  return `${parts.join('\n')}\n`;
}

export function toConsole(sections: Section[]): string {
  const lines: string[] = [];
  for (const section of sections) {
    lines.push('', section.title);
    const widths = section.table.head.map((h, i) => Math.max(h.length, ...section.table.rows.map((r) => (r[i] ?? '').length)));
    const line = (cells: string[]) =>
      cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
    lines.push(line(section.table.head), ...section.table.rows.map(line));
    for (const check of section.checks) {
      lines.push(`  ${check.pass ? 'ok ' : 'MISS'} ${check.name}: ${check.display} (goal ${check.target})`);
    }
  }
  return lines.join('\n');
}
