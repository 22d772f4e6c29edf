/**
 * Spec §5 input limits, used by the body schemas, the forms' `maxLength` and the islands. Kratos stays
 * the authority; these only spare it obviously bad input.
 */
export const LIMITS = { emailMax: 255, nameMax: 32, passwordMin: 8, passwordMax: 72 } as const;

/**
 * Looks like one e-mail address, for values we only carry (a prefill from the address bar, the
 * remembered account): short enough to be an address, no spaces or angle brackets.
 */
export const EMAIL_LIKE = /^[^\s@<>]{1,200}@[^\s@<>]{1,255}$/;

/**
 * How long Kratos keeps a social sign-in's continuity (its `ory_kratos_continuity` container lives 30
 * minutes): a link the app noted is forgotten after this, since the provider's callback could no longer
 * finish it anyway.
 */
export const SOCIAL_CONTINUITY_LIFESPAN_MS = 1_800_000; // 30 minutes, as a literal: esbuild kept the product in browser bundles that never use it

/**
 * The gateway's OAuth2 parameters (decision 140): `state` as the app sends it (at least 8 characters, as
 * Hydra requires), and a PKCE S256 challenge (base64url of a SHA-256: 43 characters).
 */
export const GATEWAY_LIMITS = { stateMin: 8, stateMax: 512, redirectUriMax: 2048, codeMax: 2048, errorMax: 1024 } as const;

/** Google Drive's `state` on /open-drive: how many files and how long one id or the whole parameter may be. */
export const DRIVE_STATE_LIMITS = { stateMax: 8192, idsMax: 100, idMax: 256, userIdMax: 256 } as const;

/** Spec §9: GA4 event parameter keys and values, and the analytics service's attribute values, are cut to these. */
export const ANALYTICS_LIMITS = { ga4KeyMax: 40, ga4ValueMax: 100, attributeMax: 200 } as const;

/** Spec §9: cookies other than the authentication one (the consent choice, anonymousUserId) live 360 days. */
export const COOKIE_MAX_AGE_DAYS = 360;
