import { describe, expect, it } from 'vitest';
import { ConfirmDialog } from '../../../views/components/ConfirmDialog.tsx';
import { DIALOG_ICONS, DIALOG_WIDTHS } from '../../../views/components/constants.ts';
import { Dialog } from '../../../views/components/Dialog.tsx';
import { LoadingOverlay } from '../../../views/components/LoadingOverlay.tsx';
import { isSessionDialogSuppressed, SessionChangedDialog } from '../../../views/components/SessionChangedDialog.tsx';
import { render, tagWith, translate } from './render.tsx';

describe('Dialog', () => {
  it('has the spec icon types and widths', () => {
    expect(DIALOG_ICONS).toEqual(['success', 'warn', 'error', 'info', 'mood']);
    expect(Object.keys(DIALOG_WIDTHS)).toEqual(['SM', 'MD', 'MDX', 'LG', 'XL']);
  });

  it('is a labelled modal dialog, hidden unless open', () => {
    const closed = render(
      <Dialog id="d" title="Title">
        Body
      </Dialog>,
    );
    expect(tagWith(closed, 'class="dialog-layer"')).toContain('hidden=""');
    const html = render(
      <Dialog id="d" title="Title" icon="mood" width="XL" open>
        Body
      </Dialog>,
    );
    expect(tagWith(html, 'class="dialog-layer"')).not.toContain('hidden');
    const dialog = tagWith(html, 'role="dialog"');
    expect(dialog).toContain('class="dialog dialog--XL"');
    expect(dialog).toContain('aria-modal="true"');
    expect(dialog).toContain('aria-labelledby="d-title"');
    expect(html).toContain('<h2 class="dialog__title" id="d-title">Title</h2>');
    expect(html).toContain('dialog__icon--mood');
  });

  it('closes through a link without JavaScript when given one', () => {
    const html = render(
      <Dialog id="d" title="T" open closeHref="/profile-settings">
        x
      </Dialog>,
    );
    expect(tagWith(html, 'dialog__close')).toContain('href="/profile-settings"');
    const noHref = render(
      <Dialog id="d" title="T" open>
        x
      </Dialog>,
    );
    expect(tagWith(noHref, 'dialog__close')).toContain('hidden=""');
  });
});

describe('ConfirmDialog', () => {
  it('defaults to OK and Cancel and posts a CSRF-protected form', () => {
    const html = render(
      <ConfirmDialog id="c" title="Sure?" formAction="/profile-settings/delete" open>
        Really?
      </ConfirmDialog>,
    );
    expect(tagWith(html, '<form')).toContain('action="/profile-settings/delete"');
    expect(tagWith(html, '<form')).toContain('method="post"');
    expect(tagWith(html, '<form')).toContain('data-enhance=""');
    expect(html).toContain('name="_csrf" value="csrf-value"');
    expect(html).toContain(`<span class="btn__label">${translate('ui.ok')}</span>`);
    expect(html).toContain(`<span class="btn__label">${translate('ui.cancel')}</span>`);
    // Cancel without JavaScript: back to the page without its query.
    expect(tagWith(html, 'btn--SECONDARY')).toContain('href="/profile-settings"');
  });

  it('takes custom texts', () => {
    const html = render(<ConfirmDialog id="c" title="T" formAction="/x" confirmText="Delete" cancelText="Keep" />);
    expect(html).toContain('>Delete</span>');
    expect(html).toContain('>Keep</span>');
  });

  it('while processing: both buttons disabled, spinner for the confirm text, closing ignored', () => {
    const html = render(<ConfirmDialog id="c" title="T" formAction="/x" processing open />);
    expect(tagWith(html, 'class="dialog-layer"')).toContain('data-processing=""');
    const confirm = tagWith(html, 'type="submit"');
    expect(confirm).toContain('disabled=""');
    expect(confirm).toContain('btn--loading');
    const cancel = tagWith(html, 'btn--SECONDARY');
    expect(cancel).toContain('aria-disabled="true"');
    expect(cancel).not.toContain('href=');
  });
});

describe('SessionChangedDialog', () => {
  it('warns with one Reload button', () => {
    const html = render(<SessionChangedDialog sessionKey="abc" open />, { url: '/profile-settings' });
    expect(html).toContain(translate('ui.sessionChanged.title'));
    expect(translate('ui.sessionChanged.title')).toBe('Session changed warning');
    expect(html).toContain(translate('ui.sessionChanged.text'));
    expect(html.match(/class="btn /g)).toHaveLength(1);
    expect(tagWith(html, 'data-reload')).toContain('href="/profile-settings"');
    expect(html).toContain('data-session-key="abc"');
    expect(html).not.toContain('dialog__close');
  });

  it('never appears on the authentication gateway', () => {
    expect(isSessionDialogSuppressed('/authentication/gateway')).toBe(true);
    expect(isSessionDialogSuppressed('/authentication/gateway?return_to=/x')).toBe(true);
    expect(isSessionDialogSuppressed('/profile-settings')).toBe(false);
    expect(isSessionDialogSuppressed('/sign-in?return_to=/authentication/gateway')).toBe(false);
    expect(render(<SessionChangedDialog open />, { url: '/authentication/gateway' })).toBe('');
  });
});

describe('LoadingOverlay', () => {
  it('shows the logo and a progress bar, white background optional', () => {
    const html = render(<LoadingOverlay whiteBackground />);
    expect(html).toContain('loading-overlay loading-overlay--white');
    // The bundled logo is drawn in the page (decision 195): no request for it.
    expect(html).toMatch(/<svg class="loading-overlay__logo"[^>]*><rect /);
    expect(tagWith(html, 'role="progressbar"')).toContain(`aria-label="${translate('ui.loading')}"`);
    expect(render(<LoadingOverlay />)).not.toContain('loading-overlay--white');
    expect(tagWith(render(<LoadingOverlay open={false} />), 'class="loading-overlay"')).toContain('hidden=""');
  });

  it('follows a form (the page-level loading flag): hidden, names the form, loads its own island only then', () => {
    const islandScripts = { 'page-loading': '/assets/page-loading-X.js' };
    const html = render(<LoadingOverlay open={false} id="o" follows="consent-form" />, { islandScripts });
    const overlay = tagWith(html, 'id="o"');
    expect(overlay).toContain('data-follows="consent-form"');
    expect(overlay).toContain('role="status"');
    expect(overlay).toContain('hidden=""');
    expect(html).toContain('src="/assets/page-loading-X.js"');
    expect(render(<LoadingOverlay open={false} />, { islandScripts })).not.toContain('page-loading');
  });
});
