/**
 * Node.js 20 reached its end of life on 30 April 2026: no more security fixes from the Node.js
 * project. Signet still runs on it (CI runs the whole suite on 20 and 24), but an operator should
 * move. oidc-provider says so on every import with a line of its own ("Unsupported runtime"),
 * which lands in the middle of CLI output (`signet clients list | …`) and in every log stream.
 * Signet holds that one line back and says it once, in its own words, where an operator looks:
 * the provider's log at start (`nodeSupportNotice`). The CLI's output stays the commands' own.
 */

const OIDC_PROVIDER_RUNTIME_LINE = 'oidc-provider WARNING: Unsupported runtime.';

/** Drops oidc-provider's runtime line from console.warn (every other line passes). Call before oidc-provider loads. */
let held = false;

export function holdBackRuntimeWarning(): void {
  if (held) return;
  held = true;
  const warn = console.warn.bind(console);
  console.warn = (...args: unknown[]) => {
    const [first] = args;
    // The line may come coloured (ANSI codes around it) when stderr is a terminal.
    if (typeof first === 'string' && first.includes(OIDC_PROVIDER_RUNTIME_LINE)) return;
    warn(...args);
  };
}

/** The notice for an operator on a Node.js that has reached its end of life, or undefined on a supported one. */
export function nodeSupportNotice(version = process.versions.node): string | undefined {
  const major = Number(version.split('.')[0]);
  if (major >= 22) return undefined;
  return `Node.js ${version} has reached its end of life (Node.js 20: 30 April 2026) and gets no more security fixes; Signet runs on it, but move to Node.js 22 or 24 LTS (docs/operating.md, "Requirements")`;
}
