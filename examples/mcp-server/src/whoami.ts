/**
 * The `whoami` tool: who signed in, from the verified access token's claims (`sub`; the wallet
 * from the `wallet` claim, or from a `sub` that is a wallet's CAIP-10 id; the ENS name from
 * `preferred_username` when it is a name). From the token and not from Signet's userinfo: the
 * token is for this server only (`aud`), and userinfo refuses a token whose audience is another
 * resource, as it should; and the answer costs no request to the issuer.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export type Identity = { sub: string; wallet: string | null; ens_name: string | null };

/** A CAIP-10 account id: `eip155:1:0xAbC…`, `solana:<ref>:<address>`, `bip122:<ref>:<address>`. */
const CAIP10 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}:[-.%a-zA-Z0-9]{1,128}$/;

const stringClaim = (claims: Record<string, unknown>, name: string) =>
  typeof claims[name] === 'string' && claims[name] !== '' ? (claims[name] as string) : undefined;

/** The identity in a token's claims; `sub` is always there (the resource server checked it). */
export function identityOf(claims: Record<string, unknown>): Identity {
  const sub = stringClaim(claims, 'sub') as string;
  const wallet = stringClaim(claims, 'wallet') ?? (CAIP10.test(sub) ? sub : undefined);
  const username = stringClaim(claims, 'preferred_username');
  // Signet's preferred_username is the ENS name, or else the address; only a name has a dot.
  const ensName = username?.includes('.') ? username : undefined;
  return { sub, wallet: wallet ?? null, ens_name: ensName ?? null };
}

const IDENTITY_SHAPE = {
  sub: z.string().describe('the subject Signet gave this client for the person'),
  wallet: z.string().nullable().describe('the wallet that signed in (CAIP-10), when the token says'),
  ens_name: z.string().nullable().describe("the wallet's ENS name, when it has one"),
};

export function registerWhoami(server: McpServer): void {
  server.registerTool(
    'whoami',
    {
      title: 'Who am I',
      description: 'Who signed in to this MCP server through Signet: the subject, the wallet and its ENS name.',
      outputSchema: IDENTITY_SHAPE,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (extra) => {
      const claims = extra.authInfo?.extra;
      if (!claims) return { isError: true, content: [{ type: 'text', text: 'no verified access token' }] };
      const identity = identityOf(claims);
      const who = identity.ens_name ?? identity.wallet ?? identity.sub;
      return {
        content: [{ type: 'text', text: `You are signed in as ${who}.\n${JSON.stringify(identity)}` }],
        structuredContent: identity,
      };
    },
  );
}
