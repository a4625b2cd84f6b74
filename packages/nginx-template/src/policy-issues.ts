/** What compiling a route's policy reports, shared by compilePolicy and the compile cache it uses. */

/** What compiling reports: a fatal error, a stricter reading, or a warning, by field. */
export interface PolicyIssues {
  error(field: string, message: string, value?: unknown): undefined;
  strict(field: string, message: string, value?: unknown): void;
  warn(field: string, message: string, value?: unknown): void;
}
