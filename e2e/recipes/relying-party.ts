/**
 * Shared by the recipe tests that run a relying party outside Node (Go, Ruby): start it as a
 * process with the recipe's environment, wait until it answers, and register its client.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { insecure, type TestProvider } from '@signet/testkit';
import * as oidc from 'openid-client';
import { collectOutput } from '../processes.ts';

export type RelyingParty = { url: string; process: ChildProcess; output(): string; stop(): Promise<void> };

/** Starts `command` and resolves once `readyUrl` answers (any status); rejects with its output if it exits first. */
export async function startRelyingParty(
  command: string,
  args: string[],
  env: Record<string, string>,
  url: string,
  readyPath = '/',
): Promise<RelyingParty> {
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collectOutput(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`${url}${readyPath}`, { redirect: 'manual' }).then(
      () => true,
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`${command} did not start (exit ${child.exitCode}):\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    process: child,
    output,
    async stop() {
      if (child.exitCode === null) child.kill();
      await exited;
    },
  };
}

/** A confidential client (client_secret_basic) registered through dynamic registration; more metadata may be given. */
export async function registerConfidential(
  provider: TestProvider,
  redirectUri: string,
  metadata: Partial<oidc.ClientMetadata> = {},
) {
  const client = await oidc.dynamicClientRegistration(
    new URL(provider.issuer),
    { redirect_uris: [redirectUri], token_endpoint_auth_method: 'client_secret_basic', client_name: 'Recipe app', ...metadata },
    undefined,
    insecure,
  );
  const { client_id, client_secret } = client.clientMetadata();
  return { clientId: client_id, clientSecret: client_secret as string };
}
