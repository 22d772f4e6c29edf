import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Alert } from '../../../views/components/Alert.tsx';
import { Avatar, initials } from '../../../views/components/Avatar.tsx';
import { Captcha } from '../../../views/components/Captcha.tsx';
import { AVATAR_SIZES, BREAKPOINTS, LAYOUT_BREAKPOINTS, TOAST_DURATION_MS, TOAST_LIMIT, TOAST_WIDTH } from '../../../views/components/constants.ts';
import { CrashScreen } from '../../../views/components/CrashScreen.tsx';
import { languageHref, LanguageSwitcher, returnPath } from '../../../views/components/LanguageSwitcher.tsx';
import { Popover } from '../../../views/components/Popover.tsx';
import { ProgressBar } from '../../../views/components/ProgressBar.tsx';
import { ThemeSwitcher } from '../../../views/components/ThemeSwitcher.tsx';
import { Toasts } from '../../../views/components/Toasts.tsx';
import { Tooltip } from '../../../views/components/Tooltip.tsx';
import { Document } from '../../../views/layout/Document.tsx';
import { KitPage, kitToasts } from '../../../views/pages/KitPage.tsx';
import { render, tagWith, translate } from './render.tsx';

describe('Avatar', () => {
  it('has the spec sizes', () => {
    expect(AVATAR_SIZES).toEqual({ XXS: 32, XS: 36, SM: 40, MD: 44, LG: 48, XL: 64, XXL: 80 });
  });

  it('falls back to initials', () => {
    expect(initials('Ada Lovelace')).toBe('AL');
    expect(initials('ada king lovelace')).toBe('AL');
    expect(initials('grace')).toBe('G');
    expect(initials('ada@example.com')).toBe('A');
    expect(initials('  ')).toBe('?');
    // Letters only: a bracketed note and punctuation are not initials (the demo client was "D(").
    expect(initials('Document app (demo)')).toBe('DA');
    expect(initials('"Quoted" name')).toBe('QN');
    expect(initials('(demo)')).toBe('D');
    expect(initials('Élodie Ñúñez')).toBe('ÉÑ');
    expect(initials('-- --')).toBe('?');
    const html = render(<Avatar name="Ada Lovelace" size="XXL" />);
    expect(tagWith(html, 'avatar')).toContain('avatar--XXL');
    expect(tagWith(html, 'avatar')).toContain('aria-label="Ada Lovelace"');
    expect(html).toContain('>AL</span>');
  });

  it('shows the picture at the size in px', () => {
    const img = tagWith(render(<Avatar name="Ada" src="/a.png" size="XL" />), '<img');
    expect(img).toContain('src="/a.png"');
    expect(img).toContain('width="64"');
    expect(img).toContain('alt="Ada"');
  });
});

describe('Captcha', () => {
  it("loads the widget and its JS-off fallback in the page's language, Portugal's Portuguese as Google names it", () => {
    const widget = { siteKey: 'k', scriptUrl: 'https://captcha.example/recaptcha/api.js', fallbackUrl: 'https://captcha.example/recaptcha/api/fallback?k=k' };
    const vietnamese = render(<Captcha widget={widget} />, { lang: 'vi' });
    expect(vietnamese).toContain('src="https://captcha.example/recaptcha/api.js?hl=vi"');
    expect(vietnamese).toContain('src="https://captcha.example/recaptcha/api/fallback?k=k&amp;hl=vi"');
    expect(render(<Captcha widget={widget} />, { lang: 'pt' })).toContain('api.js?hl=pt-PT"');
  });
});

describe('Toasts', () => {
  it('uses the spec constants', () => {
    expect([TOAST_LIMIT, TOAST_DURATION_MS, TOAST_WIDTH]).toEqual([3, 5000, 320]);
  });

  it('renders server toasts as banners, errors as alerts, with the islands’ texts', () => {
    const html = render(
      <Toasts
        items={[
          { id: 'a', message: 'Saved', variant: 'success' },
          { id: 'b', message: 'Failed', variant: 'error' },
        ]}
      />,
    );
    expect(tagWith(html, 'toast--success')).toContain('role="status"');
    expect(tagWith(html, 'toast--error')).toContain('role="alert"');
    expect(tagWith(html, 'toast--error')).toContain('data-phase="queued"');
    expect(tagWith(html, 'data-island="toasts"')).toContain(`data-text-network="${translate('ui.errors.network')}"`);
    expect(tagWith(html, 'data-toast-close')).toContain('hidden=""');
  });
});

describe('Alert', () => {
  it('announces errors as alerts and others as status', () => {
    expect(tagWith(render(<Alert variant="error">x</Alert>), 'alert--error')).toContain('role="alert"');
    expect(tagWith(render(<Alert variant="success">x</Alert>), 'alert--success')).toContain('role="status"');
    expect(
      render(
        <Alert variant="warning" title="Heads up">
          x
        </Alert>,
      ),
    ).toContain('<p class="alert__title">Heads up</p>');
  });
});

describe('Tooltip and Popover', () => {
  it('describes its trigger with a role=tooltip bubble', () => {
    const html = render(
      <Tooltip id="t" content="Help">
        ?
      </Tooltip>,
    );
    expect(tagWith(html, 'tooltip__trigger')).toContain('aria-describedby="t-tip"');
    expect(tagWith(html, 'tooltip__trigger')).toContain('tabindex="0"');
    expect(tagWith(html, 'role="tooltip"')).toContain('id="t-tip"');
  });

  it('builds the popover on details/summary', () => {
    const html = render(
      <Popover id="p" label="More">
        Panel
      </Popover>,
    );
    expect(html).toMatch(/^<details class="popover popover--start" id="p" data-popover="">/);
    expect(html).toContain('<summary class="popover__trigger">More</summary>');
  });
});

describe('ProgressBar', () => {
  it('is a progressbar; the navigation one is hidden until a navigation starts', () => {
    const nav = render(<ProgressBar label="Loading" variant="navigation" />);
    expect(tagWith(nav, 'role="progressbar"')).toContain('data-island="nav-progress"');
    expect(tagWith(nav, 'role="progressbar"')).toContain('hidden=""');
    expect(tagWith(render(<ProgressBar label="Loading" />), 'role="progressbar"')).not.toContain('hidden');
  });
});

describe('CrashScreen', () => {
  it('says Something went wrong, apologises and offers Retry that reloads', () => {
    const html = render(<CrashScreen />, { url: '/sign-in?flow=1' });
    expect(translate('crash.title')).toBe('Something went wrong');
    expect(html).toContain(`<h1 class="crash__title">${translate('crash.title')}</h1>`);
    expect(html).toContain(translate('crash.text'));
    const retry = tagWith(html, 'data-reload');
    expect(retry).toContain('href="/sign-in?flow=1"');
    expect(html).toContain(`>${translate('crash.retry')}</span>`);
    expect(html).toContain('req-1');
    expect(html).toContain('<main class="page page--center crash" role="alert">');
    expect(render(<CrashScreen embedded />)).toContain('<section class="crash" role="alert">');
  });
});

describe('LanguageSwitcher', () => {
  it('is a GET form to /language with the current path to return to', () => {
    const html = render(<LanguageSwitcher />, { url: '/sign-in?return_to=%2Fx&lng=fr', lang: 'vi' });
    expect(tagWith(html, '<form')).toContain('action="/language"');
    expect(tagWith(html, '<form')).toContain('method="get"');
    expect(html).toContain('name="return_to" value="/sign-in?return_to=%2Fx"');
    expect(html).toMatch(/<option value="vi" lang="vi" selected="">Tiếng Việt<\/option>/);
    for (const lng of ['en', 'fr', 'pt', 'es']) expect(html).toContain(`value="${lng}" lang="${lng}"`);
  });

  it('builds links too', () => {
    expect(returnPath('/a/b?lng=es&q=1')).toBe('/a/b?q=1');
    expect(languageHref('pt', '/sign-up?lng=en')).toBe('/language?lng=pt&return_to=%2Fsign-up');
  });
});

describe('ThemeSwitcher', () => {
  it('offers light, dark and auto, hidden without JavaScript', () => {
    const html = render(<ThemeSwitcher />);
    expect(tagWith(html, '<fieldset')).toContain('data-js-only=""');
    expect(tagWith(html, '<fieldset')).not.toContain('hidden');
    for (const theme of ['light', 'dark', 'auto']) {
      expect(html).toContain(`value="${theme}"`);
      expect(html).toContain(translate(`ui.theme.${theme}`));
    }
    expect(tagWith(html, 'value="light"')).toContain('checked=""');
  });
});

describe('the kit page and the stylesheet', () => {
  it('renders every component without a single style attribute (the CSP forbids them)', () => {
    for (const lng of ['en', 'vi', 'fr', 'pt', 'es']) {
      // The whole page as served: the shell adds the toasts, the progress bar and the language switcher.
      const t = (key: string, options?: Record<string, unknown>) => translate(key, lng, options);
      const html = render(
        <Document title="Kit" canonical="https://x.test/__test/kit" assets={{ css: '/assets/app.css', js: '/assets/main.js' }}>
          <KitPage saved="Ada" />
        </Document>,
        { lang: lng, url: '/__test/kit', toasts: kitToasts(t, 'Ada') },
      );
      expect(html).not.toMatch(/\sstyle="/);
      for (const marker of [
        'btn--GHOST',
        'field__toggle',
        'checkbox--indeterminate',
        'avatar--XXL',
        'kit-confirm',
        'toast--success',
        'role="tooltip"',
        'popover',
        'loading-overlay',
        'crash__title',
        'session-changed',
        'lang-switcher',
        'theme-switcher',
        'alert--warning',
        'nav-progress',
      ]) {
        expect(html).toContain(marker);
      }
    }
  });

  it('uses system fonts only, both themes, the spec breakpoints, reduced motion and focus rings', () => {
    // The entry imports its local parts only; the bundle is their concatenation.
    const entry = readFileSync('public/styles/app.css', 'utf8');
    const parts = [...entry.matchAll(/@import '\.\/([a-z-]+\.css)';/g)].map((match) => match[1]!);
    expect(parts).toEqual(['base.css', 'components.css', 'screens.css', 'social.css']);
    const css = [entry.replace(/@import '[^']+';/g, ''), ...parts.map((part) => readFileSync(`public/styles/${part}`, 'utf8'))].join('\n');
    expect(css).not.toMatch(/@font-face|@import|url\(/);
    expect(css).toContain('system-ui');
    expect(css).toContain('[data-theme=dark]');
    for (const px of Object.values(BREAKPOINTS)) expect(css).toContain(`${px}px`);
    for (const em of Object.values(LAYOUT_BREAKPOINTS)) expect(css).toContain(`(min-width: ${em}em)`);
    for (const [size, px] of Object.entries(AVATAR_SIZES)) expect(css).toContain(`.avatar--${size} { width: ${px}px; height: ${px}px;`);
    expect(css).toMatch(/\.btn--XXS \{ --btn-height: 28px;/);
    expect(css).toMatch(/\.btn--XXL \{ --btn-height: 56px;/);
    expect(css).toContain('--input-h: 48px');
    expect(css).toContain('--toast-w: 320px');
    expect(css).toContain('--popover-ms: 250ms');
    expect(css).toContain('prefers-reduced-motion: reduce');
    expect(css).toContain(':focus-visible');
  });
});
