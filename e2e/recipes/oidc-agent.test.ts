/**
 * oidc-agent (Debian's oidc-agent-cli) against the real provider, exactly as docs/recipes.md
 * shows it: stock dynamic registration (no auth method named), the code flow with PKCE and a
 * loopback redirect to oidc-agent's own web server, then tokens and renewal through the agent.
 * The person's browser is the test: it follows oidc-gen's authorization URL, a wallet signs
 * through the interaction contract, and the redirect lands at oidc-agent. Both profiles.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startTestProvider, type TestProvider, walletSignIn } from '@signet/testkit';
import { decodeJwt } from 'jose';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDebianPart } from '../../scripts/debian-parts.mjs';
import { collectOutput } from '../processes.ts';
import { HEADLESS, recipeCommands, run } from './oidc-agent.ts';

describe.each(['self-hosted', 'hosted'] as const)('oidc-agent on the %s profile', (profile) => {
  let provider: TestProvider;
  let agent: ChildProcess;
  let home: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    requireDebianPart('oidc-agent');
    provider = await startTestProvider({ PROFILE: profile });
    home = mkdtempSync(join(tmpdir(), 'signet-oidc-agent-'));
    mkdirSync(join(home, '.config'));
    const socket = join(home, 'agent.sock');
    env = { PATH: process.env.PATH, HOME: home, OIDC_SOCK: socket, OIDC_ENCRYPTION_PW: 'a-test-encryption-password' };
    // The recipe's agent, in the foreground (-d) on a socket of this test's own.
    const [agentCommand] = recipeCommands('oidc-agent');
    expect(agentCommand).toEqual(['oidc-agent', '--always-allow-idtoken']);
    agent = spawn('oidc-agent', [...(agentCommand ?? []).slice(1), '-d', '-a', socket], { env, stdio: 'ignore' });
    for (let i = 0; i < 100 && !existsSync(socket); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    if (!existsSync(socket)) throw new Error('oidc-agent did not open its socket');
  });
  afterAll(async () => {
    agent?.kill();
    await provider?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('oidc-gen registers, the wallet signs in, oidc-token gets and renews tokens', async () => {
    const port = await freePort();
    // The recipe's command (docs/recipes.md), with this provider's issuer and a free port.
    const [, genCommand = [], tokenCommand = []] = recipeCommands('oidc-agent');
    expect(genCommand[0]).toBe('oidc-gen');
    expect(tokenCommand).toEqual(['oidc-token', 'signet']);
    const args = genCommand
      .slice(1)
      .map((arg) =>
        arg.startsWith('--issuer=')
          ? `--issuer=${provider.issuer}`
          : arg.replace('http://localhost:4242', `http://localhost:${port}`),
      );
    expect(args).toContain(`--redirect-uri=http://localhost:${port}`);
    const gen = spawn('oidc-gen', [...args, ...HEADLESS], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collectOutput(gen);
    const exited = new Promise<number | null>((resolve) => gen.once('exit', resolve));
    const deadline = Date.now() + 20_000;
    let authorizationUrl: string | undefined;
    while (!authorizationUrl && Date.now() < deadline) {
      authorizationUrl = /(http\S+\/auth(?:orize)?\?\S+)/.exec(output())?.[1];
      if (!authorizationUrl) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(authorizationUrl, output()).toBeTruthy();
    const url = new URL(authorizationUrl as string);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');

    const signer = privateKeyToAccount(generatePrivateKey());
    const { callbackUrl } = await walletSignIn({ authorizationUrl: url, signer });
    expect(callbackUrl.origin).toBe(`http://localhost:${port}`);
    // The browser lands at oidc-agent's web server, which exchanges the code.
    const landing = await fetch(callbackUrl);
    const landed = await landing.text();
    expect(landed).not.toMatch(/Code Exchange Failed|error occurred/i);
    expect(await exited, output()).toBe(0);

    const first = await run('oidc-token', ['signet'], env);
    expect(first.code, first.stderr).toBe(0);
    const accessToken = first.stdout.trim();
    const userinfo = (await (
      await fetch(`${provider.url}${profile === 'hosted' ? '/userinfo' : '/me'}`, {
        headers: { authorization: `Bearer ${accessToken}` },
      })
    ).json()) as { sub?: string };
    expect(userinfo.sub).toBe(`eip155:1:${signer.address}`);

    // Renewal: a new access token from the refresh token.
    const renewed = await run('oidc-token', ['--force-new', 'signet'], env);
    expect(renewed.code, renewed.stderr).toBe(0);
    expect(renewed.stdout.trim()).not.toBe(accessToken);
    const idToken = await run('oidc-token', ['--id-token', 'signet'], env);
    expect(idToken.code, idToken.stderr).toBe(0);
    expect(decodeJwt(idToken.stdout.trim()).sub).toBe(`eip155:1:${signer.address}`);
  });
});
