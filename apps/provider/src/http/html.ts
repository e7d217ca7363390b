/** Server-rendered pages: escaped text, one stylesheet, no inline script or style (strict CSP). */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** Tagged template that escapes every interpolation unless it is already `Html`. */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] as string;
  values.forEach((value, i) => {
    const parts = Array.isArray(value) ? value : [value];
    out += parts.map((part) => (part instanceof Html ? part.value : escapeHtml(part))).join('');
    out += strings[i + 1];
  });
  return new Html(out);
}

export const raw = (value: string) => new Html(value);

export type LayoutOptions = { title: string; body: Html; scripts?: string[]; stylesheets?: string[]; lang?: string };

export function layout({ title, body, scripts = [], stylesheets = [], lang = 'en' }: LayoutOptions): string {
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${title}</title>
${stylesheets.map((href) => html`<link rel="stylesheet" href="${href}">`)}
${scripts.map((src) => html`<script type="module" src="${src}"></script>`)}
</head>
<body>
${body}
</body>
</html>`.value;
}
