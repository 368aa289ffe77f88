import { TlWriter } from './tl.js';
import { answerReader, ID, readBlockId, writeBlockId, type LiteBlockId } from './lite-api.js';

/**
 * A get-method's outcome: the TVM exit code and, when asked for (mode bit 2), the result
 * stack's BoC. The other optional parts are skipped in the schema's order: shard_proof and
 * proof (bit 0), state_proof (1), init_c7 (3), lib_extras (4).
 */
export interface RunMethodResult {
  readonly exitCode: number;
  readonly result: Buffer | null;
}

export function decodeRunMethodResult(data: Buffer): RunMethodResult {
  const r = answerReader(data, ID.runMethodResult, 'liteServer.runMethodResult');
  const mode = r.uint32();
  readBlockId(r);
  readBlockId(r);
  for (const bit of [0, 0, 1, 3, 4]) if ((mode & (1 << bit)) !== 0) r.bytes();
  const exitCode = r.int32();
  return { exitCode, result: (mode & 4) !== 0 ? r.bytes() : null };
}

export function encodeRunMethodResult(id: LiteBlockId, exitCode: number, result: Buffer): Buffer {
  return writeBlockId(writeBlockId(new TlWriter().id(ID.runMethodResult).uint32(4), id), id)
    .int32(exitCode)
    .bytes(result)
    .build();
}
