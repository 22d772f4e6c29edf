import type { ReactNode } from 'react';

/** One titled block of the profile page; `id` is the fragment the page links and scrolls to. */
export function ProfileSection(props: { id: string; title: ReactNode; description?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <section className={['profile-section', props.className].filter(Boolean).join(' ')} id={props.id} aria-labelledby={`${props.id}-title`}>
      <h2 className="profile-section__title" id={`${props.id}-title`}>
        {props.title}
      </h2>
      {props.description ? <p className="profile-section__description">{props.description}</p> : null}
      {props.children}
    </section>
  );
}
