/**
 * What the oidc-agent tests share (`oidc-agent.test.ts`: the code flow; `../device-flow.test.ts`:
 * the device flow): the recipe's commands read from docs/recipes.md, oidc-gen's flags for running
 * without a person at the terminal, and running a command to its end.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Run = { code: number | null; stdout: string; stderr: string };

/** The commands of docs/recipes.md's block marked `<!-- recipe-command: <name> -->`, split as a shell would split them. */
export function recipeCommands(name: string): string[][] {
  const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'recipes.md'), 'utf8');
  const block = new RegExp(`<!-- recipe-command: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\``).exec(doc)?.[1];
  if (!block) throw new Error(`docs/recipes.md has no ${name} command block`);
  return block
    .split('\n')
    .map((line) =>
      [...line.replace(/^eval \$\((.*)\)$/, '$1').matchAll(/(?:[^\s"]+|"[^"]*")+/g)].map((m) => m[0].replaceAll('"', '')),
    );
}

/** oidc-gen's non-interactive flags (print the URL, no prompts, the password from OIDC_ENCRYPTION_PW). */
export const HEADLESS = ['--no-url-call', '--prompt=none', '--pw-env', '--confirm-default'];

/** Runs a command to its end, collecting what it prints. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
