// oidc-client-ts in a single-page app (docs/recipes.md). AUTHORITY and CLIENT_ID come from
// the page (config.js); everything else is the recipe.
/* global oidc, SIGNET */
const userManager = new oidc.UserManager({
  authority: SIGNET.authority, // the issuer, exactly as in discovery
  client_id: SIGNET.clientId, // a public client: token_endpoint_auth_method "none"
  redirect_uri: `${location.origin}/callback.html`,
  post_logout_redirect_uri: `${location.origin}/`,
  response_type: 'code', // PKCE (S256) is automatic
  scope: SIGNET.scope,
  // Self-hosted only issues a refresh token for offline_access, and OpenID Connect honours
  // offline_access only with prompt=consent (the wallet signature is the consent). Hosted
  // needs neither: leave both out there.
  prompt: SIGNET.prompt,
  automaticSilentRenew: false,
  userStore: new oidc.WebStorageStateStore({ store: window.localStorage }),
});

async function show() {
  const user = await userManager.getUser();
  const out = document.getElementById('user');
  out.textContent = user ? `signed in as ${user.profile.preferred_username}` : 'signed out';
  document.body.dataset.state = user ? 'signed-in' : 'signed-out';
}

window.signet = {
  userManager,
  signIn: () => userManager.signinRedirect(),
  // With a refresh token, signinSilent uses it (no iframe, no third-party cookie).
  refresh: () => userManager.signinSilent(),
  signOut: () => userManager.signoutRedirect(),
};

if (location.pathname === '/callback.html') {
  userManager.signinRedirectCallback().then(
    () => location.replace('/'),
    (error) => {
      document.body.dataset.state = 'error';
      document.getElementById('user').textContent = String(error);
    },
  );
} else {
  show();
}
