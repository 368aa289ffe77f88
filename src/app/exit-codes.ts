/** The process's exit codes (the CLI's help lists them). */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
/** EX_CONFIG of sysexits.h: the configuration is wrong. */
export const EXIT_CONFIG = 78;
