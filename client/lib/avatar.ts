// Spec §5 avatar checks made before anything is sent: one file, at most the size limit, and a PNG
// or JPEG by its first bytes (not by its name). The server checks the same again.
export type AvatarProblem = 'none' | 'oneFile' | 'oversize' | 'type';

export function checkSelection(files: ArrayLike<{ size: number }>, maxBytes: number): AvatarProblem | null {
  if (files.length === 0) return 'none';
  if (files.length > 1) return 'oneFile';
  return files[0]!.size > maxBytes ? 'oversize' : null;
}

// The same dependency-free signature check the server relay uses.
export { sniffImageType as sniffImage } from '../../core/avatar.ts';
