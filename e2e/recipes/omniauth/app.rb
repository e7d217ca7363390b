# OmniAuth with omniauth_openid_connect (Debian: ruby-omniauth-openid-connect), a Rack app that
# signs its users in with Signet (docs/recipes.md). Register a confidential client with the
# redirect URI {BASE_URL}/auth/signet/callback; every value comes from the environment.
require 'json'
require 'omniauth_openid_connect'
require 'rack'
require 'rack/protection'
require 'webrick'

base_url = URI(ENV.fetch('BASE_URL')) # this app's origin, e.g. https://app.example.com

app = Rack::Builder.new do
  use Rack::Session::Cookie, secret: ENV.fetch('SESSION_SECRET'), same_site: :lax, httponly: true
  use OmniAuth::Builder do
    provider :openid_connect,
             name: :signet,
             issuer: ENV.fetch('SIGNET_ISSUER'), # exactly the discovery document's "issuer" (hosted: with its trailing slash)
             discovery: true,
             scope: %i[openid profile],
             response_type: :code,
             client_auth_method: :basic,
             client_options: {
               identifier: ENV.fetch('SIGNET_CLIENT_ID'),
               secret: ENV.fetch('SIGNET_CLIENT_SECRET'),
               redirect_uri: "#{base_url}/auth/signet/callback",
             }
  end

  # OmniAuth 2 starts a sign-in only with a POST carrying the session's CSRF token.
  map '/' do
    run lambda { |env|
      token = Rack::Protection::AuthenticityToken.token(env['rack.session'])
      form = %(<form method="post" action="/auth/signet"><input type="hidden" name="authenticity_token" value="#{token}">) +
             %(<button>Sign in with Ethereum</button></form>)
      [200, { 'content-type' => 'text/html' }, [form]]
    }
  end

  map '/auth/signet/callback' do
    run lambda { |env|
      auth = env['omniauth.auth']
      user = { uid: auth.uid, nickname: auth.info.nickname, email: auth.info.email }
      [200, { 'content-type' => 'application/json' }, [JSON.generate(user)]]
    }
  end
end

Rack::Handler::WEBrick.run(app, Host: base_url.host, Port: base_url.port, AccessLog: [])
