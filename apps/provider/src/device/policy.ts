/**
 * A device sign-in always takes a fresh signature. oidc-provider would let a browser that
 * already has a provider session (the person signed in to some site minutes ago) confirm a user
 * code and finish at once, with no wallet step: whoever gets a person to open a
 * verification_uri_complete link in that browser would get a device signed in to their account
 * after one click. This check asks for the login prompt on every device sign-in until this very
 * interaction has its own signed result.
 */
import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';

/** oidc-provider's routes of a device sign-in: the confirmed code, and the resume after the wallet step. */
const DEVICE_ROUTES = new Set(['code_verification', 'device_resume']);

export function freshSignatureForDevices(policy: interactionPolicy.DefaultPolicy): interactionPolicy.DefaultPolicy {
  const { Check } = interactionPolicy;
  policy
    .get('login')
    ?.checks.add(
      new Check(
        'device_sign_in',
        'a sign-in from another device takes a fresh signature',
        'login_required',
        (ctx: KoaContextWithOIDC) =>
          DEVICE_ROUTES.has(ctx.oidc.route) && !(ctx.oidc.result as { login?: unknown } | undefined)?.login
            ? Check.REQUEST_PROMPT
            : Check.NO_NEED_TO_PROMPT,
      ),
    );
  return policy;
}
