// Kept only for the profile tests, which still import this path: the helpers live in test/support
// (http.ts for the HTTP browser and HTML readers, fixtures.ts for identities and codes). Remove once
// test/integration/profile imports from there.
export * from '../../support/http.ts';
