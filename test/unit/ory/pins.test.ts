import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { binaryPath, pins } from '../../../scripts/ory/pins.ts';
import { realOrySkips } from '../../real-ory-projects.ts';

describe('real Ory binaries', () => {
  const empty = mkdtempSync(path.join(tmpdir(), 'ory-cache-'));
  afterEach(() => vi.unstubAllEnvs());

  it('live in a cache folder named after the pin, so changing a pin rebuilds', () => {
    vi.stubEnv('ORY_CACHE_DIR', empty);
    const kratos = binaryPath('kratos');
    expect(kratos.startsWith(empty)).toBe(true);
    expect(kratos).toMatch(new RegExp(`/kratos-${pins.kratos!.version}-[0-9a-f]{12}/kratos$`));
    const original = pins.kratos!.version;
    try {
      pins.kratos!.version = 'v0.0.0-other';
      expect(binaryPath('kratos')).not.toBe(kratos);
    } finally {
      pins.kratos!.version = original;
    }
  });

  it('when missing, the summary names every real-Ory suite that did not run and why', () => {
    vi.stubEnv('ORY_CACHE_DIR', empty);
    const skips = realOrySkips();
    expect(skips).toHaveLength(2);
    expect(skips[0]).toMatch(/integration-ory.*real Kratos is (not built yet: run `npm run ory:build`|the Go toolchain is missing)/);
    expect(skips[1]).toMatch(/Kratos with Hydra.*real Hydra is/);
    rmSync(empty, { recursive: true, force: true });
  });

  it('every pin names a module, a version, build tags and the variable its version goes in', () => {
    for (const [name, pin] of Object.entries(pins).filter(([key]) => !key.startsWith('$'))) {
      expect(pin.module, name).toMatch(/^github\.com\/ory\//);
      expect(pin.version, name).toMatch(/^v\d+\.\d+\.\d+$/);
      expect(pin.tags, name).toContain('sqlite');
      expect(pin.versionVariable, name).toMatch(/driver\/config\.Version$/);
    }
  });
});
