# Test only: the test provider's issuer is http://localhost:<port>, and the openid_connect gem
# discovers over https unless told otherwise. A real deployment's issuer is https: leave this out.
require 'swd'
SWD.url_builder = URI::HTTP
