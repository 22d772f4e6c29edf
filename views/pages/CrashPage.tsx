import { CrashScreen } from '../components/CrashScreen.tsx';

/** Spec §2 crash screen, as the whole page of an unhandled error (server/http-errors.ts). */
export function CrashPage() {
  return <CrashScreen />;
}
