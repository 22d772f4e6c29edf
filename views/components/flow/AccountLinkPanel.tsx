/**
 * The account-link sequence of spec §4 as the user sees it, above the sign-in form's options:
 *
 *   <AccountLinkPanel link={accountLinkOf(flow)} cancelHref="/sign-in?account_link=cancelled" />
 *
 * - a title naming the provider being linked and three steps (choose the account · confirm it's you ·
 *   linked), the current one marked with aria-current;
 * - "already signed up with {loginService}" (`errorMessage.alreadySignUpBy`, or
 *   `alreadySignedInAnotherMethod` for an account without a password) with a link to sign in that way;
 * - the state's own message: on the way to the provider, the wrong account, a failure, a cancel;
 * - Cancel: back to a fresh sign-in, nothing linked.
 * The form below it holds the options themselves (the password, "Confirm with {provider}").
 */
import type { AccountLink } from '../../../core/kratos/account-link.ts';
import { knownProvider, PASSWORD_METHOD } from '../../../core/kratos/social.ts';
import type { Translate } from '../../../core/translate.ts';
import { useView } from '../../context.ts';
import { Alert } from '../Alert.tsx';
import { Button } from '../Button.tsx';
import { fieldId } from './FlowNode.tsx';
import { useCachedT } from './labels.ts';

/** A provider's name (`authPage.providers.<id>`), a label Kratos gave as is, or "an unknown third party". */
export function providerLabel(t: Translate, provider: string | undefined): string {
  const known = knownProvider(provider);
  if (known) return t(`authPage.providers.${known}`);
  return provider || t('errorMessage.unknownThirdParty');
}

/** How an account signs in, as words: "email and password", "Microsoft"… */
function methodLabel(t: Translate, method: string): string {
  return method === PASSWORD_METHOD ? t('errorMessage.email&password') : providerLabel(t, method);
}

/** "email and password or Microsoft", in the page's language. */
function orList(lang: string, items: string[]): string {
  try {
    return new Intl.ListFormat(lang, { type: 'disjunction' }).format(items);
  } catch {
    return items.join(', ');
  }
}

const STEPS = ['accountLink.stepChoose', 'accountLink.stepConfirm', 'accountLink.stepDone'] as const;

/** Which of the three steps is current (0-based), or none when the sequence ended without a link. */
function currentStep(link: AccountLink): number | undefined {
  switch (link.state) {
    case 'LINKING_ACCOUNT':
      return 1;
    case 'SUCCESS':
      return 2;
    case 'CANCELLED':
    case 'INITIAL':
      return undefined;
    default:
      return 0;
  }
}

function Steps(props: { link: AccountLink; t: Translate }) {
  const current = currentStep(props.link);
  if (current === undefined) return null;
  return (
    <ol className="account-link__steps" aria-label={props.t('accountLink.steps')}>
      {STEPS.map((key, index) => (
        <li key={key} aria-current={index === current ? 'step' : undefined} data-done={index < current || props.link.state === 'SUCCESS' ? '' : undefined}>
          {props.t(key)}
        </li>
      ))}
    </ol>
  );
}

function StateMessage(props: { link: AccountLink; t: Translate; provider: string }) {
  const { link, t } = props;
  switch (link.state) {
    case 'LINKING_ACCOUNT':
      return (
        <Alert variant="info">
          <p>{t('accountLink.linking', { provider: props.provider })}</p>
        </Alert>
      );
    case 'WRONG_ACCOUNT_SELECTED':
      return (
        <Alert variant="error" data-link-state={link.state}>
          <p>{t('accountLink.wrongAccount', { email: link.email ?? '' })}</p>
        </Alert>
      );
    case 'FAILED':
      return (
        <Alert variant="error" data-link-state={link.state}>
          <p>{t('accountLink.failed')}</p>
        </Alert>
      );
    case 'CANCELLED':
      return (
        <Alert variant="info" data-link-state={link.state}>
          <p>{t('accountLink.cancelled')}</p>
        </Alert>
      );
    default:
      return null;
  }
}

export function AccountLinkPanel(props: { link: AccountLink; cancelHref: string }) {
  const t = useCachedT();
  const { lang } = useView();
  const { link } = props;
  if (link.state === 'INITIAL' || link.state === 'SUCCESS') return null;
  const provider = link.provider ? providerLabel(t, link.provider) : '';
  // A cancel from our own link ends the sequence: only the notice is left to show.
  if (link.state === 'CANCELLED' && !link.email) return <StateMessage link={link} t={t} provider={provider} />;
  const hasPassword = link.existing.includes(PASSWORD_METHOD);
  const services = orList(
    lang,
    link.existing.map((method) => methodLabel(t, method)),
  );
  const [onlyProvider] = link.existing;
  return (
    <section className="account-link" data-link-state={link.state} data-link-step={link.step} aria-labelledby="account-link-title">
      <h2 className="account-link__title" id="account-link-title">
        {provider ? t('accountLink.titleWith', { provider }) : t('accountLink.title')}
      </h2>
      <Steps link={link} t={t} />
      {link.existing.length > 0 ? (
        <Alert variant="info">
          <p>
            {hasPassword || link.existing.length > 1 || !onlyProvider
              ? t('errorMessage.alreadySignUpBy', { loginService: services })
              : t('errorMessage.alreadySignedInAnotherMethod', { provider: methodLabel(t, onlyProvider) })}
          </p>
          {hasPassword ? (
            <a className="alert__link" href={`#${fieldId('password')}`}>
              {t('accountLink.signInWith', { loginService: methodLabel(t, PASSWORD_METHOD) })}
            </a>
          ) : null}
        </Alert>
      ) : null}
      <p className="account-link__prompt">
        {provider ? t('accountLink.prompt', { provider, email: link.email ?? '' }) : t('accountLink.promptAnyProvider', { email: link.email ?? '' })}
      </p>
      <StateMessage link={link} t={t} provider={provider} />
      <Button href={props.cancelHref} variant="HYPERLINK" size="SM" className="account-link__cancel" data-link="cancel-link">
        {t('ui.cancel')}
      </Button>
    </section>
  );
}

/** SUCCESS: the link is made; the user continues to where they were going. */
export function AccountLinkedNotice(props: { provider?: string; continueHref: string }) {
  const t = useCachedT();
  const provider = props.provider ? providerLabel(t, props.provider) : '';
  return (
    <section className="account-link" data-link-state="SUCCESS" data-link-step={5} aria-labelledby="account-link-title">
      <h2 className="account-link__title" id="account-link-title">
        {t('accountLink.successTitle')}
      </h2>
      <Steps link={{ state: 'SUCCESS', step: 5, existing: [] }} t={t} />
      <Alert variant="success">
        <p>{provider ? t('accountLink.success', { provider }) : t('accountLink.successAny')}</p>
      </Alert>
      <Button href={props.continueHref} variant="PRIMARY" fullWidth data-link="continue">
        {t('authPage.continue')}
      </Button>
    </section>
  );
}
