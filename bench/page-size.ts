/** The wallet page's JavaScript, as built by `npm install` (Vite): what loads with the page, and on demand. */
import { join } from 'node:path';
import { PAGE_SCRIPT_BUDGET_GZIP, pageScriptSizes } from '../apps/provider/web/size.ts';
import type { Section } from './report.ts';

export async function pageSize(): Promise<Section> {
  const sizes = pageScriptSizes(join(import.meta.dirname, '..', 'apps', 'provider', 'web', 'dist'));
  const kb = (n: number) => (n / 1024).toFixed(1);
  return {
    title: 'Wallet sign-in page: JavaScript size',
    table: {
      head: ['what', 'files', 'KB', 'KB gzipped'],
      rows: [
        ['with the page', String(sizes.initial.files.length), kb(sizes.initial.bytes), kb(sizes.initial.gzipBytes)],
        [
          'on demand (Solana or Bitcoin signing, only when such a wallet is picked; WalletConnect, only when configured and picked)',
          String(sizes.onDemand.files.length),
          kb(sizes.onDemand.bytes),
          kb(sizes.onDemand.gzipBytes),
        ],
      ],
    },
    checks: [
      {
        name: 'JavaScript with the page, gzipped',
        value: sizes.initial.gzipBytes,
        display: `${kb(sizes.initial.gzipBytes)} KB`,
        target: `≤ ${kb(PAGE_SCRIPT_BUDGET_GZIP)} KB`,
        pass: sizes.initial.gzipBytes <= PAGE_SCRIPT_BUDGET_GZIP,
      },
    ],
  };
}
