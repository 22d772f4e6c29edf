import { useView } from '../context.ts';

/**
 * Loads an island built as an entry of its own (scripts/build.mjs) right where its markup is, so only
 * pages that show that markup download it. Module scripts run after the document is parsed, so the
 * markup after this tag is there too. Nothing when the build has no such entry, or when this render has
 * already written the address (the islands of a bundle share one file, decision 220).
 */
export function IslandScript(props: { name: string }) {
  const { nonce, islandScripts, writtenScripts } = useView();
  const src = islandScripts?.[props.name];
  if (!src || writtenScripts?.has(src)) return null;
  writtenScripts?.add(src);
  return <script type="module" nonce={nonce} src={src} />;
}
