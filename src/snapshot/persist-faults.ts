/** Told how each write of a part went; the metrics count it. */
export interface PersistObserver {
  /** A part was written; `at` is wall time, ms. */
  persisted(at: number): void;
  /** A part could not be written, for `reason` (persistFailureReason). */
  failed(reason: PersistFailureReason): void;
}

export type PersistFailureReason = 'read_only' | 'disk_full' | 'permission' | 'not_a_file' | 'other';
export const PERSIST_FAILURE_REASONS: readonly PersistFailureReason[] = ['read_only', 'disk_full', 'permission', 'not_a_file', 'other'];

/** Why a write failed, from its error code: what an operator fixes. */
export function persistFailureReason(err: unknown): PersistFailureReason {
  switch ((err as NodeJS.ErrnoException | null)?.code) {
    case 'EROFS':
      return 'read_only';
    case 'ENOSPC':
    case 'EDQUOT':
      return 'disk_full';
    case 'EACCES':
    case 'EPERM':
      return 'permission';
    case 'EISDIR':
    case 'ENOTDIR':
    case 'EEXIST':
      return 'not_a_file';
    default:
      return 'other';
  }
}
