// Runs the reCAPTCHA v2 stand-in on its own: CAPTCHA_HOST (default 127.0.0.1), CAPTCHA_PORT (default 4800).
// Give the app RECAPTCHA_SITE_KEY / RECAPTCHA_SECRET_KEY (Google's test keys, exported by ./index.ts),
// RECAPTCHA_SCRIPT_URL = <url>/recaptcha/api.js and RECAPTCHA_VERIFY_URL = <url>/recaptcha/api/siteverify.
import { startCaptchaStandIn } from './index.ts';

const standIn = await startCaptchaStandIn({ host: process.env.CAPTCHA_HOST || '127.0.0.1', port: Number(process.env.CAPTCHA_PORT || 4800) });
console.log(`captcha stand-in at ${standIn.url} (script ${standIn.scriptUrl}, siteverify ${standIn.verifyUrl})`);
const stop = () => void standIn.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
