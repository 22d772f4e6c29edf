// The OAuth2 conformance suite: the stand-in (embedded/oauth2) against real Ory Hydra v2.3.0, one pair
// of providers for every group (see harness.ts). Accepted differences: allowed-differences.ts.
import { oauth2Conformance } from './harness.ts';
import { authorizeScenarios } from './scenarios/authorize.ts';
import { challengeScenarios } from './scenarios/challenges.ts';
import { clientScenarios } from './scenarios/clients.ts';
import { discoveryScenarios } from './scenarios/discovery.ts';
import { journeyScenarios } from './scenarios/journey.ts';
import { logoutScenarios } from './scenarios/logout.ts';
import { sessionScenarios } from './scenarios/sessions.ts';
import { tokenScenarios } from './scenarios/tokens.ts';

oauth2Conformance({
  discovery: discoveryScenarios,
  clients: clientScenarios,
  'authorization code journey': journeyScenarios,
  'challenge errors': challengeScenarios,
  'authorize errors and PKCE': authorizeScenarios,
  'tokens, introspection, revocation': tokenScenarios,
  logout: logoutScenarios,
  'consent and login sessions': sessionScenarios,
});
