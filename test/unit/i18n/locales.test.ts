import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import i18next, { type i18n as I18n } from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  LANGUAGES,
  LOCALES_DIR,
  NAMESPACES,
  PLURAL_SUFFIX,
  REFERENCE_LANGUAGE,
  ROOT,
  callKeys,
  duplicateKeys,
  flatten,
  hasKey,
  hasWords,
  interpolationNames,
  localeText,
  nestedKeys,
  placeholdersOf,
  propKeys,
  sourceFiles,
  usedKeys,
  type Leaves,
} from './catalogue.ts';
import { KRATOS_DATA_ONLY_IDS, KRATOS_DERIVED_PARAMS, KRATOS_MESSAGES } from '../../../core/kratos/catalogue.ts';
import { itWithContract } from '../../support/shared-contracts.ts';

/**
 * Values allowed to read the same as in English: brand names and OK, plus each language's own name in
 * `language.<code>` (written in that language on every page). Keep this list short and explicit.
 */
const SAME_AS_ENGLISH_VALUES: ReadonlySet<string> = new Set(['Google', 'Microsoft', 'Dropbox', 'Apple', 'OK']);
const SAME_AS_ENGLISH_KEYS: ReadonlySet<string> = new Set(LANGUAGES.map((lng) => `common:language.${lng}`));

/** Spec §8 message keys, plus the HTTP-level messages the screens need. */
const SPEC_ERROR_MESSAGE_KEYS = [
  'emailIsBanned',
  'emailExisted',
  'passwordExpired',
  'alreadySignupByThirdParty',
  'incorrectEmailOrPassword',
  'userNotFound',
  'verifyRecaptchaFailed',
  'alreadySignedInAnotherMethod',
  'unVerifyAccount',
  'alreadyVerified',
  'avatarOversize',
  'onlyOnFileAllowed',
  'validFile',
  'fileTypeNotExist',
  'similarPassword',
  'leakedPassword',
  'grpcError',
  'unknownError',
  'forceLogoutTitle',
  'email&password',
  'unknownThirdParty',
  'alreadySignUpBy',
  'tooManyRequests',
  'unauthorized',
  'sessionRefreshRequired',
  'flowExpired',
  'csrfInvalid',
  'badRequest',
  'notFound',
] as const;

/** Spec §8 codes and reasons: each has `errorMessage.code.<reason>`. */
const SPEC_REASONS = [
  'email_is_banned',
  'password_expired',
  'third_party_account',
  'incorrect_email_password',
  'unactivated_account',
  'email_exists',
  'already_signed_in_another_method',
  'user_not_found',
  'recaptcha_v2_validation_failed',
  'already_verified',
  'similarity_password',
  'leaked_password',
  'browser_location_change_required',
  'session_already_available',
  'token_expired',
  'session_refresh_required',
] as const;

/** Keys whose interpolations the screens rely on. */
const REQUIRED_PARAMS: Readonly<Record<string, readonly string[]>> = {
  'errorMessage.alreadySignedInAnotherMethod': ['provider'],
  'errorMessage.avatarOversize': ['limit'],
  'errorMessage.alreadySignUpBy': ['loginService'],
  'errorMessage.tooManyRequests': ['seconds'],
  'authPage.continueWith': ['provider'],
  'authPage.checkYourEmail': ['email'],
  'authPage.acceptTerms': ['terms', 'privacy'],
  'validation.emailTooLong': ['max'],
  'validation.nameTooLong': ['max'],
  'validation.passwordTooShort': ['min'],
  'validation.passwordTooLong': ['max'],
};

const AUTH_PAGE_KEYS = [
  'email',
  'emailPlaceholder',
  'password',
  'passwordPlaceholder',
  'name',
  'namePlaceholder',
  'showPassword',
  'hidePassword',
  'signIn',
  'signUp',
  'signOut',
  'forgotPassword',
  'rememberedAccount',
  'useAnotherAccount',
  'forgetAccount',
  'continueWith',
  'orContinueWith',
  'providers.google',
  'providers.microsoft',
  'providers.dropbox',
  'providers.apple',
  'loginService.EMAIL_PASSWORD',
  'loginService.GOOGLE',
  'loginService.MICROSOFT',
  'loginService.DROPBOX',
  'loginService.APPLE',
  'loginService.UNKNOWN',
  'acceptTerms',
  'termsOfUse',
  'privacyPolicy',
  'haveAccount',
  'noAccount',
  'backToSignIn',
  'codePlaceholder',
  'resendCode',
  'submit',
  'continue',
  'newPassword',
  'confirmNewPassword',
  'sendRecoveryCode',
  'verifyEmail',
  'checkYourEmail',
] as const;

const VALIDATION_KEYS = ['required', 'emailInvalid', 'emailTooLong', 'nameTooLong', 'passwordTooShort', 'passwordTooLong', 'termsRequired'] as const;

const OWN_LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  en: 'English',
  vi: 'Tiếng Việt',
  fr: 'Français',
  pt: 'Português',
  es: 'Español',
};

type Catalogue = { text: string; data: unknown; leaves: Leaves };
const catalogues: Record<string, Record<string, Catalogue>> = {};
const instances: Record<string, I18n> = {};

function catalogue(lng: string, ns: string): Catalogue {
  return catalogues[lng]![ns]!;
}

function english(ns: string): Leaves {
  return catalogue(REFERENCE_LANGUAGE, ns).leaves;
}

/** Plural families compare by their base key; each language has its own set of forms. */
function comparableKeys(leaves: Leaves): Set<string> {
  return new Set([...leaves.keys()].map((key) => key.replace(PLURAL_SUFFIX, '_#plural')));
}

beforeAll(async () => {
  for (const lng of LANGUAGES) {
    catalogues[lng] = {};
    for (const ns of NAMESPACES) {
      const text = localeText(lng, ns);
      const data: unknown = JSON.parse(text);
      catalogues[lng][ns] = { text, data, leaves: flatten(data) };
    }
    const instance = i18next.createInstance();
    await instance.init({
      lng,
      fallbackLng: false, // a missing key must show, not fall back to English
      ns: [...NAMESPACES],
      defaultNS: 'common',
      resources: { [lng]: Object.fromEntries(NAMESPACES.map((ns) => [ns, catalogue(lng, ns).data])) } as never,
      interpolation: { escapeValue: false },
    });
    instances[lng] = instance;
  }
});

describe('locale files', () => {
  it('exist for exactly the five languages and both namespaces', () => {
    const folders = readdirSync(LOCALES_DIR)
      .filter((name) => !name.startsWith('.'))
      .sort();
    expect(folders).toEqual([...LANGUAGES].sort());
    for (const lng of LANGUAGES) {
      for (const ns of NAMESPACES) expect(existsSync(path.join(LOCALES_DIR, lng, `${ns}.json`)), `${lng}/${ns}.json`).toBe(true);
    }
  });

  it('are JSON objects without a key repeated in the same object', () => {
    const problems: string[] = [];
    for (const lng of LANGUAGES) {
      for (const ns of NAMESPACES) {
        const { text, data } = catalogue(lng, ns);
        if (data === null || typeof data !== 'object' || Array.isArray(data)) problems.push(`${lng}/${ns}: not an object`);
        for (const key of duplicateKeys(text)) problems.push(`${lng}/${ns}: "${key}" appears twice`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('hold only non-empty strings', () => {
    const problems: string[] = [];
    for (const lng of LANGUAGES) {
      for (const ns of NAMESPACES) {
        for (const [key, value] of catalogue(lng, ns).leaves) {
          if (typeof value !== 'string') problems.push(`${lng}/${ns}:${key} is ${JSON.stringify(value)}`);
          else if (value.trim() === '') problems.push(`${lng}/${ns}:${key} is empty`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('have the same keys in every language as in English, in both directions', () => {
    const problems: string[] = [];
    for (const ns of NAMESPACES) {
      const reference = comparableKeys(english(ns));
      for (const lng of LANGUAGES) {
        if (lng === REFERENCE_LANGUAGE) continue;
        const keys = comparableKeys(catalogue(lng, ns).leaves);
        for (const key of reference) if (!keys.has(key)) problems.push(`${lng}/${ns}: missing ${key}`);
        for (const key of keys) if (!reference.has(key)) problems.push(`${lng}/${ns}: ${key} is not in English`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('have every plural form each language needs', () => {
    const problems: string[] = [];
    for (const lng of LANGUAGES) {
      const needed = new Intl.PluralRules(lng).resolvedOptions().pluralCategories;
      for (const ns of NAMESPACES) {
        const leaves = catalogue(lng, ns).leaves;
        const bases = new Set([...leaves.keys()].filter((key) => PLURAL_SUFFIX.test(key)).map((key) => key.replace(PLURAL_SUFFIX, '')));
        for (const base of bases) {
          for (const form of needed) if (!leaves.has(`${base}_${form}`)) problems.push(`${lng}/${ns}: missing ${base}_${form}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('translate every value: none is left identical to English (brand names aside)', () => {
    const problems: string[] = [];
    for (const ns of NAMESPACES) {
      for (const lng of LANGUAGES) {
        if (lng === REFERENCE_LANGUAGE) continue;
        for (const [key, value] of catalogue(lng, ns).leaves) {
          const englishValue = english(ns).get(key);
          if (typeof value !== 'string' || value !== englishValue) continue;
          if (!hasWords(value) || SAME_AS_ENGLISH_VALUES.has(value) || SAME_AS_ENGLISH_KEYS.has(`${ns}:${key}`)) continue;
          problems.push(`${lng}/${ns}:${key} = ${JSON.stringify(value)}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('keep the interpolations and nestings of English', () => {
    const problems: string[] = [];
    for (const ns of NAMESPACES) {
      for (const lng of LANGUAGES) {
        if (lng === REFERENCE_LANGUAGE) continue;
        for (const [key, value] of catalogue(lng, ns).leaves) {
          const englishValue = english(ns).get(key);
          if (typeof value !== 'string' || typeof englishValue !== 'string') continue;
          const expected = placeholdersOf(englishValue);
          const actual = placeholdersOf(value);
          if (JSON.stringify(expected) !== JSON.stringify(actual)) {
            problems.push(`${lng}/${ns}:${key} has ${actual.join(' ') || 'none'}, English has ${expected.join(' ') || 'none'}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('nest only keys that exist ($t(…) references)', () => {
    const problems: string[] = [];
    for (const lng of LANGUAGES) {
      for (const ns of NAMESPACES) {
        for (const [key, value] of catalogue(lng, ns).leaves) {
          if (typeof value !== 'string') continue;
          for (const nested of nestedKeys(value)) {
            const [targetNs, targetKey] = nested.includes(':') ? nested.split(':', 2) : [ns, nested];
            if (!catalogue(lng, targetNs!)?.leaves.has(targetKey!)) problems.push(`${lng}/${ns}:${key} nests missing ${nested}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('one variety of each language', () => {
  // pt is European Portuguese throughout ("palavra-passe", "iniciar sessão"): words only Brazilian Portuguese
  // uses would mix the two on one screen, as they once did.
  const BRAZILIAN_ONLY = /(?<!\p{L})(você|vocês|senhas?|arquivos?|aplicativo|cadastr\p{L}*|usuários?|contato|excluir|salvar|tela)(?!\p{L})|Termos de Uso/iu;

  it('pt reads as European Portuguese everywhere', () => {
    const mixed = NAMESPACES.flatMap((ns) =>
      [...catalogue('pt', ns).leaves].filter(([, value]) => typeof value === 'string' && BRAZILIAN_ONLY.test(value)).map(([key]) => `${ns}:${key}`),
    );
    expect(mixed).toEqual([]);
  });

  it('the check itself tells the two apart', () => {
    expect(BRAZILIAN_ONLY.test('Sua senha foi alterada.')).toBe(true);
    expect(BRAZILIAN_ONLY.test('Que bom ver você de novo.')).toBe(true);
    expect(BRAZILIAN_ONLY.test('Leia os Termos de Uso')).toBe(true);
    expect(BRAZILIAN_ONLY.test('A sua palavra-passe foi alterada.')).toBe(false);
    expect(BRAZILIAN_ONLY.test('Termos de Utilização')).toBe(false);
  });
});

describe('Kratos messages (kratos.<id>)', () => {
  const emitted = KRATOS_MESSAGES.filter(([id]) => !KRATOS_DATA_ONLY_IDS.includes(id));

  it('cover every id of the contract catalogue, and nothing else', () => {
    const present = Object.keys((catalogue('en', 'common').data as { kratos?: object }).kratos ?? {}).sort();
    expect(present).toEqual(emitted.map(([id]) => String(id)).sort());
  });

  it('interpolate only the context keys Kratos sends with each id', () => {
    const problems: string[] = [];
    for (const [id, context] of emitted) {
      const allowed = new Set([...context, ...context.flatMap((name) => KRATOS_DERIVED_PARAMS[name] ?? [])]);
      const value = String(english('common').get(`kratos.${id}`));
      for (const name of interpolationNames(value)) if (!allowed.has(name)) problems.push(`kratos.${id} uses {{${name}}}`);
    }
    expect(problems).toEqual([]);
  });

  it('render in every language with the context filled in', () => {
    const problems: string[] = [];
    for (const lng of LANGUAGES) {
      const t = instances[lng]!.t;
      for (const [id, context] of emitted) {
        const params: Record<string, unknown> = {};
        for (const name of context) params[name] = `‹${name}›`;
        params.minutes = 7;
        const text = t(`kratos.${id}`, params);
        if (text === `kratos.${id}` || text.includes('{{') || text.trim() === '') problems.push(`${lng}: kratos.${id} → ${text}`);
        for (const name of interpolationNames(String(english('common').get(`kratos.${id}`)))) {
          if (name !== 'minutes' && !text.includes(`‹${name}›`)) problems.push(`${lng}: kratos.${id} lost {{${name}}}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  itWithContract('match the catalogue of the Kratos contract (§17)', 'ory-kratos.md', (contract) => {
    const text = readFileSync(contract, 'utf8');
    const section = text.slice(text.indexOf('## 17.'), text.indexOf('## 18.'));
    const rows = section
      .split('\n')
      .filter((line) => /^\| \d{7} \| (?:info|error|success) \|/.test(line))
      .map((line) => {
        const cells = line
          .slice(1, -1)
          .split('|')
          .map((cell) => cell.trim());
        const context = cells
          .at(-1)!
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean);
        return [Number(cells[0]), context] as const;
      });
    expect(rows).toEqual(KRATOS_MESSAGES);
  });
});

describe('spec §8 errors (errorMessage.*)', () => {
  it('have every message key and every code in English', () => {
    const leaves = english('common');
    const missing = [...SPEC_ERROR_MESSAGE_KEYS.map((key) => `errorMessage.${key}`), ...SPEC_REASONS.map((reason) => `errorMessage.code.${reason}`)].filter(
      (key) => !leaves.has(key),
    );
    expect(missing).toEqual([]);
  });

  it('turn every code into a readable text in every language', () => {
    const problems: string[] = [];
    for (const lng of LANGUAGES) {
      for (const reason of SPEC_REASONS) {
        const key = `errorMessage.code.${reason}`;
        const text = instances[lng]!.t(key);
        if (text === key || text.includes('$t(') || !hasWords(text)) problems.push(`${lng}: ${key} → ${text}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('keep the parameters the screens pass', () => {
    const problems: string[] = [];
    for (const [key, params] of Object.entries(REQUIRED_PARAMS)) {
      const names = interpolationNames(String(english('common').get(key) ?? ''));
      for (const name of params) if (!names.includes(name)) problems.push(`${key} lacks {{${name}}}`);
    }
    expect(problems).toEqual([]);
  });

  it('show the limit, provider and wait time they are given', () => {
    for (const lng of LANGUAGES) {
      const t = instances[lng]!.t;
      expect(t('errorMessage.avatarOversize', { limit: 5 })).toContain('5');
      expect(t('errorMessage.alreadySignedInAnotherMethod', { provider: 'Dropbox' })).toContain('Dropbox');
      expect(t('errorMessage.tooManyRequests', { seconds: 42 })).toContain('42');
      expect(t('errorMessage.alreadySignUpBy', { loginService: t('authPage.loginService.GOOGLE') })).toContain('Google');
      expect(t('validation.emailTooLong', { max: 255 })).toContain('255');
    }
  });
});

describe('shared labels', () => {
  it('have the auth-page and validation keys the screens use', () => {
    const leaves = english('common');
    const missing = [...AUTH_PAGE_KEYS.map((key) => `authPage.${key}`), ...VALIDATION_KEYS.map((key) => `validation.${key}`)].filter((key) => !leaves.has(key));
    expect(missing).toEqual([]);
  });

  it('name each language in itself, on every page', () => {
    for (const lng of LANGUAGES) {
      for (const [code, name] of Object.entries(OWN_LANGUAGE_NAMES)) {
        expect(catalogue(lng, 'common').leaves.get(`language.${code}`), `${lng}: language.${code}`).toBe(name);
      }
    }
  });

  it('hold the terms summary shown at sign-up', () => {
    for (const lng of LANGUAGES) {
      const t = instances[lng]!.t;
      expect(t('terms:title')).not.toBe('title');
      const acceptance = t('terms:acceptance', { terms: '[T]', privacy: '[P]' });
      expect(acceptance).toContain('[T]');
      expect(acceptance).toContain('[P]');
      const summaries = [...catalogue(lng, 'terms').leaves.keys()].filter((key) => key.includes('.summary.'));
      expect(summaries.length, lng).toBeGreaterThanOrEqual(6);
    }
  });
});

describe('translation keys used in the sources', () => {
  it('all exist in English', () => {
    const files = sourceFiles().map((file) => ({ file: path.relative(ROOT, file), text: readFileSync(file, 'utf8') }));
    expect(files.length).toBeGreaterThan(0);
    const calls = files.flatMap(({ file, text }) => callKeys(text, file));
    const sections = new Set([
      ...Object.keys(catalogue('en', 'common').data as object),
      ...calls.filter((used) => used.ns === 'common').map((used) => used.key.split('.')[0]!),
    ]);
    const used = [...calls, ...files.flatMap(({ file, text }) => propKeys(text, file, sections))];
    const missing: string[] = [];
    for (const { ns, key, file, line } of used) {
      const leaves = (NAMESPACES as readonly string[]).includes(ns) ? english(ns) : undefined;
      if (!leaves || !hasKey(leaves, key)) missing.push(`${file}:${line} ${ns}:${key}`);
    }
    expect(missing).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const sections = new Set(['authPage', 'signIn']);

  it('find literal keys in t() calls, with namespaces, and skip dynamic ones', () => {
    const source = [
      "t('authPage.email')",
      'req.t("signIn.title", { x: 1 })',
      "t('terms:links.terms')",
      "t('acceptance', { ns: 'terms' })",
      't(`kratos.${id}`)',
      't(key)',
      "format('not.a.key')",
      'const labelKey = "authPage.password";',
      "storageKey: 'theme.v1'",
      '<Thing i18nKey="signIn.help" />',
      'export const FIELD_LABEL_KEYS: Readonly<Record<string, string>> = {',
      "  password: 'authPage.password',",
      "  other: 'not-a-key',",
      '};',
    ].join('\n');
    expect(usedKeys(source, 'x.tsx', sections).map((used) => `${used.ns}:${used.key}@${used.line}`)).toEqual([
      'common:authPage.email@1',
      'common:signIn.title@2',
      'terms:links.terms@3',
      'terms:acceptance@4',
      'common:authPage.password@8',
      'common:signIn.help@10',
      'common:authPage.password@12',
    ]);
  });

  it('spot a key repeated in one object, but not the same key in two objects', () => {
    expect(duplicateKeys('{"a": {"b": 1, "c": [{"b": 2}]}, "a": "x", "d": "\\"a\\""}')).toEqual(['a']);
    expect(duplicateKeys('{"a": {"x": 1}, "b": {"x": 1}}')).toEqual([]);
  });

  it('read placeholders and nestings, and tell words from bare placeholders', () => {
    expect(placeholdersOf('Hi {{name}}, {{ count, number }} $t(a.b) {{- raw}}')).toEqual(['$t(a.b)', '{{count}}', '{{name}}', '{{raw}}']);
    expect(hasWords('{{reason}}')).toBe(false);
    expect(hasWords('$t(errorMessage.userNotFound)')).toBe(false);
    expect(hasWords('« {{pattern}} »')).toBe(false);
    expect(hasWords('Tiếp tục')).toBe(true);
  });

  it('flatten nested objects and arrays into dotted paths', () => {
    expect([...flatten({ a: { b: 'x', c: ['y', 'z'] } }).entries()]).toEqual([
      ['a.b', 'x'],
      ['a.c.0', 'y'],
      ['a.c.1', 'z'],
    ]);
  });
});
