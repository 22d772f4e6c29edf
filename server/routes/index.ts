import type { Express } from 'express';
import { invitationRoutes } from './invitation.ts';
import { cannyRoutes } from './canny.ts';
import { forgotPasswordRoutes } from './forgot-password.ts';
import { resetPasswordRoutes } from './reset-password.ts';
import { resendVerificationRoutes } from './resend-verification.ts';
import { verificationRoutes } from './verification.ts';
import { profileSettingsRoutes } from './profile-settings.ts';
import { swaggerRoutes } from './swagger.ts';
import { languageRoutes } from './language.ts';
import { signInRoutes } from './sign-in.ts';
import { googleOneTapRoutes } from './google-one-tap.ts';
import { signUpRoutes } from './sign-up.ts';
import { logoutRoutes } from './logout.ts';
import { homeRoutes } from './home.ts';
import { flowErrorRoutes } from './flow-error.ts';
import { consentRoutes } from './consent.ts';
import { gatewayRoutes } from './gateway.ts';
import { openDriveRoutes } from './open-drive.ts';
import { liveSessionRoutes } from '../socket/routes.ts';
import { accountHostRouting } from '../flows/account-host.ts';
import { cookieConsentRoutes } from './cookie-consent.ts';
import type { AppLocals } from '../locals.ts';

/**
 * Mounts every feature router, before the 404 handler. One line per feature: adding a screen
 * means adding its router here and nowhere else in app.ts.
 */
export function mountRoutes(app: Express): void {
  app.use(accountHostRouting((app.locals as AppLocals).config)); // first: other paths on ACCOUNT_HOST go to PUBLIC_URL
  app.use(cookieConsentRoutes()); // the consent decision every page renders with, and the banner's choice
  app.use(swaggerRoutes());
  app.use(forgotPasswordRoutes());
  app.use(resetPasswordRoutes());
  app.use(resendVerificationRoutes());
  app.use(verificationRoutes());
  app.use(languageRoutes());
  app.use(googleOneTapRoutes()); // before sign-in and sign-up: it adds One Tap to their pages
  app.use(signInRoutes());
  app.use(signUpRoutes());
  app.use(logoutRoutes());
  app.use(homeRoutes());
  app.use(flowErrorRoutes());
  app.use(consentRoutes());
  app.use(profileSettingsRoutes());
  app.use(cannyRoutes());
  app.use(invitationRoutes());
  app.use(gatewayRoutes());
  app.use(openDriveRoutes());
  app.use(liveSessionRoutes());
}
