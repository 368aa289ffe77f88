import { Ajv } from 'ajv';
import { fixture } from './fixtures.js';

/**
 * The indexer's published OpenAPI for `/api/v3/walletStates` (test/fixtures, with its source
 * and commit), as a JSON Schema validator, and the indexer's omission rule.
 */

interface SwaggerPiece {
  readonly definitions: Record<string, { properties?: Record<string, { type?: string | string[] }> }>;
}

/**
 * Swagger 2.0 cannot say nullable. These are the pointer fields without `omitempty` in the
 * indexer's Go models: the only places its answers carry `null` (fixture note).
 */
const NULLABLE_IN_GO_MODELS: Readonly<Record<string, readonly string[]>> = {
  WalletState: ['last_transaction_hash', 'last_transaction_lt'],
  AddressBookRow: ['user_friendly', 'domain'],
};

function schemaWithGoNullability(): object {
  const piece = structuredClone(fixture('indexer-openapi-wallet-states.json') as SwaggerPiece);
  for (const [definition, fields] of Object.entries(NULLABLE_IN_GO_MODELS)) {
    for (const field of fields) {
      const property = piece.definitions[definition]?.properties?.[field];
      if (property === undefined || typeof property.type !== 'string') throw new Error(`the fixture has no ${definition}.${field} of one type`);
      property.type = [property.type, 'null'];
    }
  }
  return { $ref: '#/definitions/WalletStatesResponse', definitions: piece.definitions };
}

// `example` is a Swagger keyword JSON Schema does not know: not strict about keywords.
const validate = new Ajv({ strict: false, allErrors: true }).compile(schemaWithGoNullability());

/** What the published schema finds wrong with a walletStates answer; [] when it validates. */
export function openApiProblems(answer: unknown): string[] {
  if (validate(answer)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}

/** The indexer's omission rule for one served wallet: null only in the last transaction's two fields; address and is_wallet always. */
export function omissionProblems(wallet: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(wallet)) {
    if (value === null && key !== 'last_transaction_hash' && key !== 'last_transaction_lt') problems.push(`${key} is null; the indexer leaves it out`);
    if (key === 'extra_currencies' && typeof value === 'object' && value !== null && Object.keys(value).length === 0) {
      problems.push('extra_currencies is {}; the indexer leaves it out when empty');
    }
  }
  for (const key of ['address', 'is_wallet', 'last_transaction_hash', 'last_transaction_lt']) if (!(key in wallet)) problems.push(`${key} is missing`);
  return problems;
}
