/**
 * The `id` of each form the islands enhance. The page renders it, the enhanced-post fragment swaps the
 * element with the same id, and the rate limiter answers an enhanced post with the form of that id.
 */
export const FORM_IDS = {
  signIn: 'sign-in-form',
  signUp: 'sign-up-form',
  forgotPassword: 'forgot-password-form',
  resetPassword: 'reset-password-form',
  verification: 'verification-form',
  resendVerification: 'resend-verification-form',
  invitation: 'invitation-form',
  logout: 'logout-form',
  profileName: 'profile-name-form',
  profilePassword: 'profile-password-form',
  profileLogins: 'profile-logins-form',
} as const;

export type FormId = (typeof FORM_IDS)[keyof typeof FORM_IDS];
