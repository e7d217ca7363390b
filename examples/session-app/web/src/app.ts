/**
 * Application A's try-it page: connect a browser wallet, get a nonce, sign an EIP-4361
 * message for this site, verify it, and see the session.
 */
import { createSiweMessage } from '@signet/siwe/message';
import { getAddress } from 'viem/utils';

type Eip1193 = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };

const $ = (id: string) => document.getElementById(id) as HTMLElement;
const status = $('status');
const say = (text: string, error = false) => {
  status.textContent = text;
  status.className = error ? 'error' : '';
};

function walletProvider(): Promise<Eip1193 | undefined> {
  return new Promise((resolve) => {
    let found: Eip1193 | undefined;
    window.addEventListener('eip6963:announceProvider', (event) => {
      found ??= (event as CustomEvent).detail?.provider;
    });
    window.dispatchEvent(new Event('eip6963:requestProvider'));
    setTimeout(() => resolve(found ?? (window as unknown as { ethereum?: Eip1193 }).ethereum), 200);
  });
}

async function refresh() {
  const me = await fetch('/api/me');
  if (me.ok) {
    const { address, chainId } = await me.json();
    $('who').textContent = `Signed in as ${address} on chain ${chainId}`;
    $('sign-in').hidden = true;
    $('sign-out').hidden = false;
  } else {
    $('who').textContent = 'Not signed in';
    $('sign-in').hidden = false;
    $('sign-out').hidden = true;
  }
}

$('sign-in').addEventListener('click', async () => {
  try {
    const wallet = await walletProvider();
    if (!wallet) return say('No browser wallet found.', true);
    const [account] = (await wallet.request({ method: 'eth_requestAccounts' })) as string[];
    const chainId = Number.parseInt(String(await wallet.request({ method: 'eth_chainId' })), 16);
    const { nonce } = await (await fetch('/api/nonce')).json();
    const address = getAddress(account as string);
    const message = createSiweMessage({
      domain: location.host,
      address,
      statement: 'Sign in to the Signet example app.',
      uri: location.origin,
      chainId,
      nonce,
      issuedAt: new Date(),
    });
    const hex = `0x${[...new TextEncoder().encode(message)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
    const signature = await wallet.request({ method: 'personal_sign', params: [hex, address] });
    const response = await fetch('/api/verify', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message, signature }),
    });
    const body = await response.json();
    if (!response.ok) return say(`Refused: ${body.error.type} (${body.error.message})`, true);
    say('Signed in.');
    await refresh();
  } catch (error) {
    say(`Wallet error: ${(error as Error).message}`, true);
  }
});

$('sign-out').addEventListener('click', async () => {
  await fetch('/api/logout', { method: 'POST' });
  say('Signed out.');
  await refresh();
});

refresh();
