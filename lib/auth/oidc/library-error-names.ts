// jose's and oauth4webapi's errors name themselves after their class (`this.name = this.constructor.name`), and a
// refused OIDC callback logs that name (errorKind). The worker is minified without keep_names (wrangler.toml), which
// would leave one or two letters there; these classes get their own names back when this module loads, before any is
// thrown. Where names are kept (Node, the Lambda bundle) this sets what is already there.
import { errors as joseErrors } from 'jose';
import * as oauth from 'oauth4webapi';

const OAUTH_ERRORS = {
  UnsupportedOperationError: oauth.UnsupportedOperationError,
  OperationProcessingError: oauth.OperationProcessingError,
  ResponseBodyError: oauth.ResponseBodyError,
  AuthorizationResponseError: oauth.AuthorizationResponseError,
  WWWAuthenticateChallengeError: oauth.WWWAuthenticateChallengeError,
};

for (const [name, errorClass] of Object.entries({ ...joseErrors, ...OAUTH_ERRORS })) {
  Object.defineProperty(errorClass, 'name', { value: name });
}
