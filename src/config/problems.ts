/** One thing wrong with a configuration, located by its dotted key path or file:line. */
export interface ConfigProblem {
  readonly path: string;
  readonly message: string;
}

/** Every problem found in a configuration at once; exit code 78 (EX_CONFIG). */
export class ConfigError extends Error {
  readonly code = 'bad_config';
  constructor(
    readonly source: string,
    readonly problems: readonly ConfigProblem[],
  ) {
    super(`${source}: ${problems.length} configuration problem${problems.length === 1 ? '' : 's'}:\n${formatProblems(problems)}`);
    this.name = 'ConfigError';
  }
}

export function formatProblems(problems: readonly ConfigProblem[]): string {
  return problems.map((p) => `  - ${p.path === '' ? '(top level)' : p.path}: ${p.message}`).join('\n');
}
