import type { ReactNode } from 'react';
import { Brand } from '../Brand.tsx';

/**
 * The centred card every guest screen sits in (sign-in, sign-up, verification, recovery, errors).
 * `page` names the screen for styles and tests (`data-page`); `data-clear-storage` asks the islands to
 * remove those localStorage keys on load (set after a logout); `data-from`, `data-action` and
 * `data-platform` carry the spec §2 context of the visit.
 */
export function AuthCard(props: {
  page: string;
  title: ReactNode;
  subtitle?: ReactNode;
  clearStorage?: readonly string[];
  footer?: ReactNode;
  /** Spec §2 context for the islands and analytics: `from`/`action` (read from return_to), `platform`. */
  context?: { from?: string; action?: string; platform?: string };
  children: ReactNode;
}) {
  return (
    <main
      className="page page--auth"
      data-page={props.page}
      data-clear-storage={props.clearStorage && props.clearStorage.length > 0 ? props.clearStorage.join(' ') : undefined}
      data-from={props.context?.from}
      data-action={props.context?.action}
      data-platform={props.context?.platform}
    >
      <Brand className="brand--auth" />
      <section className="auth-card">
        <header className="auth-card__header">
          <h1 className="auth-card__title">{props.title}</h1>
          {props.subtitle ? <p className="auth-card__subtitle">{props.subtitle}</p> : null}
        </header>
        {props.children}
        {props.footer ? <footer className="auth-card__footer">{props.footer}</footer> : null}
      </section>
    </main>
  );
}
