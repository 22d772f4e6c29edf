// Spec §5 avatar checks made before anything is sent: one file, at most the size limit, and a PNG
// or JPEG by its first bytes (not by its name). The server checks the same again.
export type AvatarProblem = 'none' | 'oneFile' | 'oversize' | 'type';

export function checkSelection(files: ArrayLike<{ size: number }>, maxBytes: number): AvatarProblem | null {
  if (files.length === 0) return 'none';
  if (files.length > 1) return 'oneFile';
  return files[0]!.size > maxBytes ? 'oversize' : null;
}

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];

export function sniffImage(bytes: Uint8Array): 'png' | 'jpeg' | null {
  const starts = (signature: number[]) => signature.every((byte, i) => bytes[i] === byte);
  return starts(PNG) ? 'png' : starts(JPEG) ? 'jpeg' : null;
}
