import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Logical asset name (`main.js`, `app.css`) → public, content-hashed URL. Written by scripts/build.mjs. */
export type AssetManifest = Record<string, string>;

export function loadManifest(assetsDir: string): AssetManifest {
  const file = path.resolve(assetsDir, 'manifest.json');
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as AssetManifest;
  } catch {
    throw new Error(`Asset manifest missing at ${file}: run "npm run build" first`);
  }
}
