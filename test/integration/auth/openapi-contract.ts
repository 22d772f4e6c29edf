// Kept only for test/integration/profile/openapi.test.ts, which still imports this path.
export * from '../../support/openapi-contract.ts';
