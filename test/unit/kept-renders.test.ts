import { createElement, createContext, type ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { identityOf, keptRender, offerRender, renderKeyOf } from '../../server/kept-renders.ts';

// Guest pages rendered once their inputs repeat (decision 243): the key holds every input with the
// request's values as numbered placeholders; a render is kept from the second matching sighting only.
const newValues = () => [crypto.randomUUID(), Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')];

function Form(props: { flow: string; csrf: string; label: string }) {
  return createElement(
    'form',
    { action: `/sign-in?flow=${props.flow}` },
    createElement('input', { type: 'hidden', name: 'csrf_token', value: props.csrf }),
    createElement('button', null, props.label),
  );
}
const page = ([flow, csrf]: string[], label = 'Sign in'): ReactElement => createElement(Form, { flow: flow!, csrf: csrf!, label });

describe('renderKeyOf', () => {
  it('is the same for the same inputs with other values, and differs when any input does', () => {
    const a = newValues();
    const b = newValues();
    const key = renderKeyOf(['Sign in', { lang: 'en' }, page(a)], a);
    expect(key).toBeTruthy();
    expect(renderKeyOf(['Sign in', { lang: 'en' }, page(b)], b)).toBe(key);
    expect(renderKeyOf(['Sign in', { lang: 'fr' }, page(b)], b)).not.toBe(key);
    expect(renderKeyOf(['Sign in', { lang: 'en' }, page(b, 'Continue')], b)).not.toBe(key);
    expect(renderKeyOf(['Sign up', { lang: 'en' }, page(b)], b)).not.toBe(key);
    // What a development build of React adds to an element (its owner, debugging aids) is not an input.
    expect(key).not.toMatch(/_owner|_store|_debug/);
  });

  it('says which value stands where: the same inputs with two values swapped give another key', () => {
    const [flow, csrf] = newValues();
    const values = [flow!, csrf!];
    expect(renderKeyOf([page([flow!, csrf!])], values)).not.toBe(renderKeyOf([page([csrf!, flow!])], values));
  });

  it('knows components by identity, not by name, and a closure made per request never repeats', () => {
    const values = newValues();
    const Other = function Form(props: { flow: string; csrf: string; label: string }) {
      return createElement('p', null, props.label);
    };
    const same = renderKeyOf([page(values)], values);
    expect(renderKeyOf([createElement(Other, { flow: values[0]!, csrf: values[1]!, label: 'Sign in' })], values)).not.toBe(same);
    const withClosure = () => renderKeyOf([createElement('button', { onClick: () => values.length })], values);
    expect(withClosure()).not.toBe(withClosure());
    const context = createContext('x');
    expect(identityOf(context)).toBe(identityOf(context));
    expect(renderKeyOf([createElement(context.Provider, { value: 'y' }, page(values))], values)).toBeTruthy();
  });

  it('keys nothing it cannot see whole: a Map, a class, a cycle, a value HTML or JSON would show in another form', () => {
    const values = newValues();
    expect(renderKeyOf([{ seen: new Map([['a', 1]]) }], values)).toBeUndefined();
    expect(renderKeyOf([{ state: new (class Hidden {})() }], values)).toBeUndefined();
    // What shows itself to JSON (toJSON) is keyed by what it shows: a date by its time.
    expect(renderKeyOf([{ at: new Date(0) }], values)).not.toBe(renderKeyOf([{ at: new Date(1) }], values));
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(renderKeyOf([cycle], values)).toBeUndefined();
    expect(renderKeyOf([page(values)], [...values, 'a&b<c>"quoted"-0123456789'])).toBeUndefined();
    expect(renderKeyOf([page(values)], [...values, 'short'])).toBeUndefined();
  });
});

describe('keptRender and offerRender', () => {
  const render = (values: string[], label?: string) => renderToString(page(values, label));

  it('keeps a render from its second matching sighting, then gives it with each request’s own values', () => {
    const owner = {};
    const first = newValues();
    const key = renderKeyOf([page(first)], first)!;
    expect(keptRender(owner, key, first)).toBeUndefined();
    offerRender(owner, key, render(first), first);
    const second = newValues();
    expect(keptRender(owner, key, second), 'one sighting is not enough').toBeUndefined();
    offerRender(owner, key, render(second), second);
    for (const values of [newValues(), newValues()]) expect(keptRender(owner, key, values)).toBe(render(values));
    expect(keptRender({}, key, second), 'another owner (app) has its own').toBeUndefined();
  });

  it('never keeps a key whose text changed between sightings: an input the key missed, or a value shown otherwise', () => {
    const owner = {};
    const first = newValues();
    const key = renderKeyOf([page(first)], first)!;
    offerRender(owner, key, render(first, 'Sign in'), first);
    const second = newValues();
    offerRender(owner, key, render(second, 'Continue'), second);
    expect(keptRender(owner, key, newValues())).toBeUndefined();
    // A value escaped in the page differs around its place from one request to the next.
    const escaped = (values: string[]) => `<p>${values[0]}</p><p>${encodeURIComponent(values[1]!)}</p>`;
    const other = renderKeyOf(['escaped'], first)!;
    offerRender(owner, other, escaped(first), first);
    offerRender(owner, other, escaped(second), second);
    expect(keptRender(owner, other, newValues())).toBeUndefined();
  });
});

describe("an account's own renders (decision 253)", () => {
  const render = (values: string[], label?: string) => renderToString(page(values, label));
  const keep = (owner: object, key: string, scope: 'guest' | 'account', label?: string) => {
    for (const values of [newValues(), newValues()]) offerRender(owner, key, render(values, label), values, scope);
  };

  it('are kept apart from the guest screens: a key kept in one answers nothing in the other', () => {
    const owner = {};
    const values = newValues();
    const key = renderKeyOf([page(values)], values)!;
    keep(owner, key, 'account');
    expect(keptRender(owner, key, values, 'account')).toBe(render(values));
    expect(keptRender(owner, key, values, 'guest')).toBeUndefined();
    expect(keptRender(owner, key, values)).toBeUndefined();
  });

  it('many accounts’ renders leave the guest screens kept', () => {
    const owner = {};
    const values = newValues();
    const guestKey = renderKeyOf([page(values, 'Sign in')], values)!;
    keep(owner, guestKey, 'guest', 'Sign in');
    for (let account = 0; account < 300; account++) {
      const key = renderKeyOf([page(values, `account ${account}`)], values)!;
      keep(owner, key, 'account', `account ${account}`);
    }
    expect(keptRender(owner, guestKey, values, 'guest')).toBe(render(values, 'Sign in'));
  });
});
