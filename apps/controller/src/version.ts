/** The controller's version in one place, for `--version` and the build-info metrics. */
import packageJson from '../package.json' with { type: 'json' };

/** The controller's version, from its package.json (inlined when bundled). */
export const CONTROLLER_VERSION: string = packageJson.version;
