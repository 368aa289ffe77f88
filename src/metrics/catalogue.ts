/** A family of chain series (`ton_*`): its name, help and type. Each feature declares its own (features/<name>/families.ts). */
export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: 'gauge' | 'counter';
}

export const gauge = (name: string, help: string): MetricFamily => ({ name, help, type: 'gauge' });
