// Avatar upload island (profile settings): checks and previews the chosen picture, uploads it with
// fetch (JSON answer) and updates every [data-user-avatar] on the page; removal is instant and rolls
// back when the server refuses. Without JavaScript both forms are plain posts.
import { avatarTone, initials } from '../../core/avatar.ts';
import { checkSelection, sniffImage, type AvatarProblem } from '../lib/avatar.ts';
import { all, firstTime } from '../lib/dom.ts';
import { TOAST_EVENT, type ToastRequest } from '../lib/toast-queue.ts';

const fresh = firstTime();

/** A success toast, shown by the shared bundle's toasts island (this island is a bundle of its own). */
function announceSuccess(message?: string): void {
  document.dispatchEvent(new CustomEvent<ToastRequest>(TOAST_EVENT, { detail: { message, variant: 'success' } }));
}
const TEXT_KEYS: Record<AvatarProblem, string> = { none: 'textNone', oneFile: 'textOneFile', oversize: 'textOversize', type: 'textType' };

/** Every avatar of the signed-in user: the section's picture and the header's. */
function pictures(): HTMLElement[] {
  return all(document, '[data-avatar-picture] .avatar, [data-user-avatar] .avatar');
}

function draw(avatar: HTMLElement, src: string | null, alt?: string): void {
  const owner = avatar.closest<HTMLElement>('[data-user-name]');
  const name = (owner && owner.dataset.userName) || '';
  avatar.className = avatar.className.replace(/\s?avatar--tone\d/g, '');
  avatar.textContent = '';
  if (src) {
    const img = document.createElement('img');
    img.className = 'avatar__img';
    img.src = src;
    img.alt = alt || name;
    avatar.removeAttribute('role');
    avatar.removeAttribute('aria-label');
    avatar.append(img);
  } else {
    avatar.classList.add(`avatar--tone${avatarTone(name)}`);
    avatar.setAttribute('role', 'img');
    avatar.setAttribute('aria-label', name);
    const letters = document.createElement('span');
    letters.setAttribute('aria-hidden', 'true');
    letters.textContent = initials(name);
    avatar.append(letters);
  }
}

async function problemOf(input: HTMLInputElement, maxBytes: number): Promise<AvatarProblem | null> {
  const files = input.files || [];
  const problem = checkSelection(files, maxBytes);
  if (problem) return problem;
  const head = new Uint8Array(await files[0]!.slice(0, 8).arrayBuffer());
  return sniffImage(head) ? null : 'type';
}

/** The server's translated error message from a JSON answer, if any. */
function messageOf(data: Record<string, unknown>): string {
  return typeof data.message === 'string' ? data.message : '';
}

async function send(form: HTMLFormElement, body: FormData | URLSearchParams): Promise<{ ok: boolean; data: Record<string, unknown> }> {
  const response = await fetch(form.action, { method: 'POST', body, headers: { Accept: 'application/json' }, credentials: 'same-origin' });
  return { ok: response.ok, data: await response.json().catch(() => ({})) };
}

export function mountAvatar(root: ParentNode): void {
  for (const host of all(root, '[data-island="avatar-upload"]')) {
    if (!fresh(host)) continue;
    const texts = host.dataset;
    const upload = host.querySelector<HTMLFormElement>('form.profile-avatar__upload');
    const remove = host.querySelector<HTMLFormElement>('form.profile-avatar__remove');
    const input = upload && upload.querySelector<HTMLInputElement>('input[type="file"]');
    const errorBox = host.querySelector<HTMLElement>('[data-avatar-error]');
    const picture = host.querySelector<HTMLElement>('[data-avatar-picture] .avatar');
    if (!upload || !remove || !input || !picture) continue;
    const maxBytes = Number(texts.maxBytes) || 5 * 1024 * 1024;
    let saved = picture.innerHTML;
    let preview: string | null = null;

    const showError = (text?: string) => {
      if (!errorBox) return;
      errorBox.textContent = '';
      if (!text) return;
      const alert = document.createElement('div');
      alert.className = 'alert alert--error';
      alert.setAttribute('role', 'alert');
      alert.textContent = text;
      errorBox.append(alert);
    };
    const restore = () => {
      if (preview) URL.revokeObjectURL(preview);
      preview = null;
      picture.innerHTML = saved;
    };
    const busy = (form: HTMLFormElement, on: boolean) => {
      const button = form.querySelector('button');
      if (!button) return;
      button.disabled = on;
      button.classList.toggle('btn--loading', on);
    };

    // The box around the input takes a dropped file as if it had been chosen.
    const zone = host.querySelector<HTMLElement>('[data-drop-zone]');
    if (zone) {
      zone.classList.add('file-drop--on');
      for (const cue of all(zone, '.file-drop__cue')) cue.hidden = false;
      const over = (on: boolean) => (event: Event) => {
        event.preventDefault();
        zone.classList.toggle('file-drop--over', on);
      };
      zone.addEventListener('dragover', over(true));
      zone.addEventListener('dragleave', over(false));
      zone.addEventListener('drop', (event) => {
        over(false)(event);
        const files = (event as DragEvent).dataTransfer?.files;
        if (!files || !files.length) return;
        input.files = files;
        input.dispatchEvent(new Event('change'));
      });
    }

    input.addEventListener('change', async () => {
      const problem = await problemOf(input, maxBytes);
      showError(problem ? texts[TEXT_KEYS[problem]] : undefined);
      restore();
      if (problem) return;
      preview = URL.createObjectURL(input.files![0]!);
      draw(picture, preview, texts.textPreview);
    });

    upload.addEventListener('submit', async (event) => {
      event.preventDefault();
      const problem = await problemOf(input, maxBytes);
      if (problem) return showError(texts[TEXT_KEYS[problem]]);
      busy(upload, true);
      try {
        const answer = await send(upload, new FormData(upload));
        const user = answer.data.user as { avatarUrl?: unknown } | undefined;
        const url = user?.avatarUrl;
        if (!answer.ok || typeof url !== 'string') throw new Error(messageOf(answer.data));
        restore();
        for (const avatar of pictures()) draw(avatar, url);
        saved = picture.innerHTML;
        remove.hidden = false;
        upload.reset();
        showError();
        announceSuccess(texts.textUploaded);
      } catch (error) {
        showError((error as Error).message || texts.textFailed);
      } finally {
        busy(upload, false);
      }
    });

    remove.addEventListener('submit', async (event) => {
      event.preventDefault();
      // Instant: the initials show at once; the old picture comes back if the server refuses.
      const before = pictures().map((avatar) => ({ avatar, html: avatar.innerHTML, className: avatar.className }));
      for (const avatar of pictures()) draw(avatar, null);
      remove.hidden = true;
      try {
        const answer = await send(remove, new URLSearchParams(new FormData(remove) as unknown as Record<string, string>));
        if (!answer.ok) throw new Error(messageOf(answer.data));
        saved = picture.innerHTML;
        showError();
        announceSuccess(texts.textRemoved);
      } catch (error) {
        for (const state of before) {
          state.avatar.innerHTML = state.html;
          state.avatar.className = state.className;
        }
        remove.hidden = false;
        showError((error as Error).message || texts.textFailed);
      }
    });
  }
}
